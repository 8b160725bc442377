import CallGateProtocol
import Foundation
import LWS
import Synchronization

/// One WebSocket to a CallGate gateway, speaking protocol v1: requests with replies, and pushes.
///
/// Safe to use from any thread or task; socket work happens on the `ClientLoop`'s service thread.
public final class CallGateClient: CallGateRequester {
    private struct State {
        var opening: CheckedContinuation<Void, any Error>?
        var pending: [String: CheckedContinuation<ReplyOutcome, any Error>] = [:]
        var nextRequestNumber: UInt64 = 0
        var closed = false
        var closeCode: UInt16?
        var closeReason: String?
        /// Keeps the token fresh, when `connect(token:refreshingWith:)` started it.
        var refresher: Task<Void, Never>?
        /// Where the socket stands in its user's push sequence.
        var position = PushPosition()
        /// The `connect` waiting for its reply, and what it asked to recover from.
        var connecting: (id: String, recover: RecoverParams?)?
    }

    private let loop: ClientLoop
    private let recorder: FrameRecorder?
    private let inbox = EventInbox()
    private let state = Mutex(State())
    /// The socket; touched on the service thread only.
    nonisolated(unsafe) private var connection: WebSocketConnection?

    private init(loop: ClientLoop, recorder: FrameRecorder?) {
        self.loop = loop
        self.recorder = recorder
    }

    /// Opens a socket to `ws://host:port/path` (`wss://` with `tls`) and waits for the
    /// handshake. Not yet authenticated: call `connect(token:)` next. With TLS, the server's
    /// certificate must name `host` and chain to a CA the loop trusts, unless `tls` allows a
    /// self-signed one; a failed check throws `connectFailed`.
    public static func open(
        host: String, port: Int, path: String = WireEndpoint.path, loop: ClientLoop,
        sourceAddress: String? = nil, recorder: FrameRecorder? = nil, tls: ClientTLS? = nil
    ) async throws -> CallGateClient {
        let client = CallGateClient(loop: loop, recorder: recorder)
        let target = ClientTarget(host: host, port: port, path: path, sourceAddress: sourceAddress, tls: tls)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            client.state.withLock { $0.opening = continuation }
            loop.context.post {
                do {
                    client.connection = try loop.context.connect(to: target, attachment: client)
                } catch {
                    client.socketClosed(code: nil, reason: nil, error: String(describing: error))
                }
            }
        }
        return client
    }

    /// The close code the server sent, once the socket is closed.
    public var closeCode: UInt16? {
        state.withLock { $0.closeCode }
    }

    /// The reason in the server's close frame, once the socket is closed with one.
    public var closeReason: String? {
        state.withLock { $0.closeReason }
    }

    /// The reconnect hint of the server's 1012 close (a draining or stopping node), nil for any
    /// other close or a reason that is not a hint.
    public var reconnectHint: ReconnectHint? {
        state.withLock { state in
            guard state.closeCode == CloseCode.serviceRestart, let reason = state.closeReason else { return nil }
            return ReconnectHint(reason: reason)
        }
    }

    /// Where this device stands in its user's push sequence: the connect result's epoch and
    /// connection id with the last push seen. Pass it as `recover` when connecting again (on a
    /// new socket) to be given what was missed in between. Nil before `connect` succeeded.
    public var recoveryPoint: RecoverParams? {
        state.withLock { $0.position.point }
    }

    /// Takes up the push sequence from a connect result, on the service thread before the
    /// frames after it (see `PushPosition.follow`).
    private func connected(_ result: ConnectResult, recovering recover: RecoverParams?) {
        state.withLock { $0.position.follow(result, recovering: recover) }
    }

    /// Moves the position past a push numbered `seq`.
    private func saw(seq: UInt64) {
        state.withLock { _ = $0.position.see(seq) }
    }

    /// The next push, unmatched reply or close, waiting at most `timeout` (nil: forever).
    /// Returns nil on timeout, and after the close event was read.
    public func nextEvent(timeout: Duration? = nil) async -> ClientEvent? {
        await inbox.next(timeout: timeout)
    }

    /// Sends one request and waits for its reply; a server error comes back as `.failure`.
    public func send(_ request: ClientRequest) async throws -> ReplyOutcome {
        let id = state.withLock { state -> String in
            state.nextRequestNumber += 1
            return "r\(state.nextRequestNumber)"
        }
        let frame = try RequestFrame(id: id, request: request).encoded()
        return try await withCheckedThrowingContinuation { continuation in
            let closedCode: UInt16?? = state.withLock { state in
                if state.closed { return .some(state.closeCode) }
                state.pending[id] = continuation
                if case .connect(let params) = request {
                    state.connecting = (id, params.recover)
                }
                return .none
            }
            if let closedCode {
                continuation.resume(throwing: CallGateClientError.closed(code: closedCode))
                return
            }
            write(frame)
        }
    }

    /// Sends text as it is, for testing how the server treats malformed frames.
    public func sendRaw(_ text: String) {
        write(Data(text.utf8))
    }

    /// Closes the socket normally and waits until it is closed.
    ///
    /// Reads (and drops) the events still queued; while another task waits in `nextEvent`, use
    /// `startClosing()` instead and let that task see the `.closed` event.
    public func close() async {
        startClosing()
        while let event = await nextEvent(timeout: .seconds(10)) {
            if case .closed = event { return }
        }
    }

    /// Starts closing the socket normally and returns at once; the close arrives as the last
    /// event, `.closed`, for whoever reads the events.
    public func startClosing() {
        loop.context.post { [self] in
            connection?.close(code: 1000, reason: "bye")
        }
    }

    /// Drops the socket without a close frame, as a lost network does: the gateway sees the
    /// connection end abruptly, and `.closed` (no code) is the last event. For trying out how an
    /// app recovers (see `recoveryPoint`).
    public func drop() {
        loop.context.post { [self] in
            connection?.drop()
        }
    }

    /// Makes `task` the token refresher, cancelling any earlier one; cancels `task` at once when
    /// the socket is closed already.
    func adoptRefresher(_ task: Task<Void, Never>) {
        let (previous, closed) = state.withLock { state in
            defer { state.refresher = task }
            return (state.refresher, state.closed)
        }
        previous?.cancel()
        if closed { task.cancel() }
    }

    private func write(_ frame: Data) {
        recorder?.record(.sent, frame)
        loop.context.post { [self] in
            connection?.send(OutboundFrame(frame))
        }
    }

    // MARK: service thread

    func socketOpened() {
        loop.context.assertOnServiceThread()
        let opening = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        opening?.resume()
    }

    func received(_ message: [UInt8]) {
        loop.context.assertOnServiceThread()
        let data = Data(message)
        recorder?.record(.received, data)
        let frame: ServerFrame
        do {
            frame = try ServerFrame.decode(data)
        } catch {
            inbox.put(.unreadableFrame(data))
            return
        }
        switch frame {
        case .reply(let id, let outcome):
            let connecting = state.withLock { state -> RecoverParams?? in
                guard let id, state.connecting?.id == id else { return nil }
                defer { state.connecting = nil }
                return .some(state.connecting?.recover)
            }
            if let connecting, let result = try? outcome.decodeResult(ConnectResult.self) {
                connected(result, recovering: connecting)
            }
            let waiter = id.flatMap { id in state.withLock { $0.pending.removeValue(forKey: id) } }
            if let waiter {
                waiter.resume(returning: outcome)
            } else {
                inbox.put(.unmatchedReply(id: id, outcome: outcome))
            }
        case .push(let event, let seq, let raw):
            if let seq {
                saw(seq: seq)
            }
            if let push = try? Push(event: event, frame: raw) {
                inbox.put(.push(push))
            } else {
                inbox.put(.unreadableFrame(raw))
            }
        }
    }

    func socketClosed(code: UInt16?, reason: String?, error: String?) {
        loop.context.assertOnServiceThread()
        connection = nil
        let (opening, pending, refresher) = state.withLock { state in
            state.closed = true
            state.closeCode = code
            state.closeReason = reason
            defer {
                state.opening = nil
                state.pending = [:]
            }
            return (state.opening, state.pending, state.refresher)
        }
        refresher?.cancel()
        opening?.resume(throwing: CallGateClientError.connectFailed(error ?? "closed during the handshake"))
        for waiter in pending.values {
            waiter.resume(throwing: CallGateClientError.closed(code: code))
        }
        inbox.put(.closed(code: code))
    }
}

/// Why a client operation failed without a server error reply.
public enum CallGateClientError: Error, Equatable, CustomStringConvertible {
    /// The WebSocket could not be opened (server not running, wrong port, refused upgrade).
    case connectFailed(String)
    /// The socket closed before the reply came; `code` is the server's close code, if any.
    case closed(code: UInt16?)

    public var description: String {
        switch self {
        case .connectFailed(let detail): "cannot connect to the gateway: \(detail)"
        case .closed(let code): "the gateway closed the connection" + (code.map { " (code \($0))" } ?? "")
        }
    }
}
