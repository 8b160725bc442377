import CallGateProtocol
import Foundation
import LWS
import Synchronization

/// A device that stays connected: one `CallGateClient` at a time, and when its socket drops, a
/// new one that connects with the last one's `recoveryPoint`, so the pushes missed in between
/// arrive, in order, before any new push. The sessions the app joined through this client come
/// back too: taken over by the gateway within its grace period (`resumedSessions`), else joined
/// again with a fresh call token while their call lives (a meet session that was not taken over
/// is not joined again).
///
/// Events are the sockets' events in order, each socket's to its end, with `.reconnected`
/// (the new connect result) between two sockets; `.closed` ends them when `startClosing` was
/// called, or when a close means another connect cannot help: 4001 and 4003 (the token), 4009
/// (too many devices), 4010 (another connection of this device took over), and a reconnect
/// refused with `AUTH_ERR` or `ERR_TOO_MANY_DEVICES`. Reconnects wait 0.25 s doubling to 8 s,
/// with jitter. Safe to use from any task.
public final class ReconnectingClient: CallGateRequester {
    /// Where the gateway is.
    public struct Target: Sendable {
        public var host: String
        public var port: Int
        public var path: String
        public var tls: ClientTLS?

        /// Makes a target.
        public init(host: String, port: Int, path: String = WireEndpoint.path, tls: ClientTLS? = nil) {
            self.host = host
            self.port = port
            self.path = path
            self.tls = tls
        }
    }

    private struct State {
        var current: CallGateClient
        /// Sessions joined through this client and not left.
        var joined: Set<String> = []
        var stopping = false
    }

    private let target: Target
    private let loop: ClientLoop
    private let fetchToken: @Sendable () async throws -> String
    private let inbox = EventInbox()
    private let state: Mutex<State>

    private init(target: Target, loop: ClientLoop, first: CallGateClient, fetchToken: @escaping @Sendable () async throws -> String) {
        self.target = target
        self.loop = loop
        self.fetchToken = fetchToken
        state = Mutex(State(current: first))
    }

    /// Opens the first socket and connects with a token from `fetchToken`, which is asked again
    /// before each reconnect (tokens expire). Throws what that first connect throws.
    public static func connect(
        to target: Target, loop: ClientLoop, fetchToken: @escaping @Sendable () async throws -> String
    ) async throws -> (ReconnectingClient, ConnectResult) {
        let first = try await CallGateClient.open(host: target.host, port: target.port, path: target.path, loop: loop, tls: target.tls)
        let result: ConnectResult
        do {
            result = try await first.connect(token: try await fetchToken())
        } catch {
            await first.close()
            throw error
        }
        let client = ReconnectingClient(target: target, loop: loop, first: first, fetchToken: fetchToken)
        Task { await client.pump(from: first) }
        return (client, result)
    }

    /// Where the device stands in its push sequence (the current socket's).
    public var recoveryPoint: RecoverParams? {
        state.withLock { $0.current }.recoveryPoint
    }

    /// The next event, waiting at most `timeout` (nil: forever); nil on timeout and after `.closed`.
    public func nextEvent(timeout: Duration? = nil) async -> ClientEvent? {
        await inbox.next(timeout: timeout)
    }

    /// Sends a request on the current socket; while it is down, fails with
    /// `CallGateClientError.closed`. Remembers the sessions joined and left.
    public func send(_ request: ClientRequest) async throws -> ReplyOutcome {
        let outcome = try await state.withLock { $0.current }.send(request)
        switch (request, outcome) {
        case (.joinSession, .success):
            if let joined = try? outcome.decodeResult(SessionResult.self) {
                state.withLock { _ = $0.joined.insert(joined.session.sessionId) }
            }
        case (.leaveSession(let params), .success):
            state.withLock { _ = $0.joined.remove(params.sessionId) }
        default:
            break
        }
        return outcome
    }

    /// Drops the current socket without a close frame, as a lost network does; the client
    /// reconnects as after any drop. For trying out how an app recovers.
    public func dropSocket() {
        state.withLock { $0.current }.drop()
    }

    /// Closes the current socket normally and reconnects no more; `.closed` ends the events.
    public func startClosing() {
        let current = state.withLock { state in
            state.stopping = true
            return state.current
        }
        current.startClosing()
    }

    /// Forwards `client`'s events until its socket closes, then connects again (or ends).
    private func pump(from client: CallGateClient) async {
        var client = client
        while true {
            var code: UInt16?
            while let event = await client.nextEvent() {
                if case .closed(let closing) = event {
                    code = closing
                    break
                }
                if case .push(.callEnded(let sessionId)) = event {
                    state.withLock { _ = $0.joined.remove(sessionId) }
                }
                inbox.put(event)
            }
            let final = code.map(CloseCode.final.contains) ?? false
            guard !state.withLock({ $0.stopping }), !final else {
                inbox.put(.closed(code: code))
                return
            }
            switch await reconnect(after: client) {
            case .connected(let next):
                client = next
            case .stopped(let refusal):
                inbox.put(.closed(code: refusal ?? code))
                return
            }
        }
    }

    /// How a reconnect ended.
    private enum Reconnect {
        /// Connected on this socket.
        case connected(CallGateClient)
        /// `startClosing` was called (no code), or the gateway refused the device for a reason
        /// another try cannot change: the close code that goes with it.
        case stopped(UInt16?)
    }

    /// A new socket connected with `previous`'s recovery point, its sessions taken over or
    /// joined again. The first try waits as a 1012 close's reconnect hint says (a draining
    /// node), else 250 ms with jitter. Tries again, backing off, after a socket that would not
    /// open, a token that could not be fetched or a connect that failed, but not after
    /// `AUTH_ERR` (4001) or `ERR_TOO_MANY_DEVICES` (4009).
    private func reconnect(after previous: CallGateClient) async -> Reconnect {
        var delay = Duration.milliseconds(250)
        var wait = previous.reconnectHint.map { hint in
            var generator = SystemRandomNumberGenerator()
            return Duration.milliseconds(hint.delayMilliseconds(using: &generator))
        } ?? delay.jittered
        while !state.withLock({ $0.stopping }) {
            try? await Task.sleep(for: wait)
            delay = min(delay * 2, .seconds(8))
            wait = delay.jittered
            guard let next = try? await CallGateClient.open(
                host: target.host, port: target.port, path: target.path, loop: loop, tls: target.tls)
            else { continue }
            do {
                let result = try await next.connect(token: try await fetchToken(), recover: previous.recoveryPoint)
                let adopted = state.withLock { state -> Bool in
                    guard !state.stopping else { return false }
                    state.current = next
                    return true
                }
                guard adopted else {
                    await next.close()
                    return .stopped(nil)
                }
                inbox.put(.reconnected(result))
                await rejoin(besides: Set(result.resumedSessions.map(\.sessionId)), live: result.activeCalls)
                return .connected(next)
            } catch let refusal as ErrorBody where refusal.code == .authError || refusal.code == .tooManyDevices {
                await next.close()
                return .stopped(refusal.code == .authError ? CloseCode.unauthorized : CloseCode.tooManyDevices)
            } catch {
                await next.close()
            }
        }
        return .stopped(nil)
    }

    /// Joins again the sessions the app had joined that the gateway did not keep for this
    /// device and whose call is still live; the others are forgotten (a meet session is not
    /// joined again: it may have ended, and joining its id would start a new one).
    private func rejoin(besides resumed: Set<String>, live calls: [Call]) async {
        let live = Set(calls.map(\.sessionId))
        for sessionId in state.withLock({ $0.joined }).subtracting(resumed).sorted() {
            guard live.contains(sessionId) else {
                state.withLock { _ = $0.joined.remove(sessionId) }
                continue
            }
            do {
                let token = try await generateToken(sessionId: sessionId)
                _ = try await joinSession(callToken: token.callToken)
            } catch is ErrorBody {
                state.withLock { _ = $0.joined.remove(sessionId) }
            } catch {
                return
            }
        }
    }
}

extension Duration {
    /// This duration give or take a quarter, so that devices dropped together do not come back
    /// at the same instant.
    fileprivate var jittered: Duration {
        self * Double.random(in: 0.75...1.25)
    }
}
