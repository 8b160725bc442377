import CallGateProtocol
import Foundation

/// One device's connection to a CallGate gateway, speaking protocol v1, that stays connected.
///
/// Every op is a typed async method (`initiateCall`, `acceptCall`, `joinSession`, ... from
/// `CallGateRequester`), throwing the gateway's `ErrorBody` or a `CallGateConnectionError`.
/// Every push and every change of the connection is a `CallGateEvent`, read from `events()` or
/// told to a `CallGateConnectionDelegate` on the main actor.
///
/// What the gateway's guarantees need from a client is done here:
/// - **Reconnect.** A socket that closes unexpectedly is opened again, 0.5 s doubling to 15 s
///   with jitter, and `connect` sends `recover` (epoch, last seq seen, connection id), so the
///   pushes missed in between come back, in order, before any new one.
/// - **Dedup.** A push whose `seq` was seen already is dropped.
/// - **Rejoin.** Sessions joined through this connection that the gateway did not keep are
///   joined again with a fresh call token while their call is live (`.recovered` says which).
/// - **Token refresh.** With `fetchToken`, the token is refreshed a minute before it expires
///   (halfway, for one that lives less than two minutes).
/// - **Ring confirmation.** A ring handed to the app is confirmed to the caller
///   (`confirmsRinging`).
/// - **Final closes.** 4001, 4003, 4009 and 4010 end the reconnects: another try cannot help.
public actor CallGateConnection: CallGateRequester {
    let configuration: CallGateConfiguration
    let transport: any CallGateTransport
    /// The token the next connect sends: the configured one, then the latest refreshed.
    var token: String
    /// When `token` expires (Unix seconds, the gateway's clock), once a connect said so.
    var tokenExpiresAt: Int64?
    /// The open socket, and its number: events of an earlier socket are ignored.
    var socket: (any TransportSocket)?
    var socketNumber = 0
    /// Frames to send on the open socket, in order.
    var outgoing: AsyncStream<String>.Continuation?
    var pending: [String: CheckedContinuation<ReplyOutcome, any Error>] = [:]
    var nextRequestNumber: UInt64 = 0
    /// The `connect` waiting for its reply, and what it asked to recover from.
    var connecting: (id: String, recover: RecoverParams?)?
    /// The gateway's clock minus this device's, in ms, from the last connect.
    var clockOffsetMillis: Int64 = 0
    /// Where the device stands in its push sequence; its point is sent as `recover` by the next connect.
    var position = PushPosition()
    /// Sessions joined through this connection and not left, with the `idleTimeout` they were joined with.
    var joined: [String: Int?] = [:]
    /// Rings confirmed to their callers (`confirmsRinging`) that may still ring.
    var confirmed: Set<String> = []
    /// `close()` was called: no reconnects until `connect()`.
    var closedByApp = false
    /// When the last connect succeeded: a socket that lived 30 s resets the reconnect backoff.
    var connectedAt: ContinuousClock.Instant?
    var attempt = 0
    var retryTask: Task<Void, Never>?
    var refreshTask: Task<Void, Never>?
    private var subscribers: [Int: AsyncStream<CallGateEvent>.Continuation] = [:]
    private var nextSubscriber = 0
    private var delegateTask: Task<Void, Never>?

    /// The connect result of the open socket; nil while disconnected.
    public internal(set) var current: ConnectResult?
    /// The newest count of the user's unseen missed calls this connection knows of.
    public internal(set) var missedCalls: MissedCalls?

    /// A connection that is not connected yet: call `connect()`. `transport` opens the sockets.
    public init(configuration: CallGateConfiguration, transport: any CallGateTransport = WebSocketTransport()) {
        self.configuration = configuration
        self.transport = transport
        token = configuration.token
    }

    deinit {
        for subscriber in subscribers.values {
            subscriber.finish()
        }
        outgoing?.finish()
        if let socket {
            Task { await socket.close(code: 1000, reason: "bye") }
        }
    }

    /// Whether a socket is open and its `connect` succeeded.
    public var isConnected: Bool {
        current != nil
    }

    /// The gateway's clock now, in Unix milliseconds: this device's corrected by the offset the
    /// last connect measured.
    public var serverNowMillis: Int64 {
        Self.localMillis().addingClamped(clockOffsetMillis)
    }

    /// Every event from now on, in order, until the connection is released. Each call makes a
    /// stream of its own; subscribe before `connect()` to see its `.open`. A stream keeps the
    /// events not read yet: read it, or end the loop that reads it (which unsubscribes it).
    public func events() -> AsyncStream<CallGateEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: CallGateEvent.self, bufferingPolicy: .unbounded)
        let number = nextSubscriber
        nextSubscriber += 1
        subscribers[number] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(number) }
        }
        return stream
    }

    /// Tells `delegate` every event from now on, on the main actor; nil stops telling. The
    /// delegate is held weakly.
    public func setDelegate(_ delegate: (any CallGateConnectionDelegate)?) {
        delegateTask?.cancel()
        delegateTask = nil
        guard let delegate else { return }
        let stream = events()
        delegateTask = Task { @MainActor [weak self, weak delegate] in
            for await event in stream {
                guard let connection = self, let delegate else { return }
                delegate.connection(connection, didReceive: event)
            }
        }
    }

    /// Opens a socket and authenticates, recovering what the last socket missed when there was
    /// one. Answers the connect result; throws the gateway's `ErrorBody` (`AUTH_ERR`,
    /// `ERR_TOO_MANY_DEVICES`) or `.connectFailed`. Reconnects, once connected, are automatic.
    @discardableResult
    public func connect() async throws -> ConnectResult {
        closedByApp = false
        retryTask?.cancel()
        retryTask = nil
        return try await openAndConnect(retrying: false)
    }

    /// Makes `token` the one the next connect sends: after a close with 4001 or 4003, give a new
    /// token here, then `connect()` again (it recovers what was missed meanwhile). While
    /// connected, send it with `refreshToken` instead.
    public func setToken(_ token: String) {
        self.token = token
        tokenExpiresAt = nil
    }

    /// Closes the socket normally (1000) and reconnects no more: `.closed` comes at once,
    /// pending requests fail with `.disconnected`, nothing more from this socket reaches the app.
    /// A later `connect()` starts afresh: it recovers and rejoins nothing.
    public func close() async {
        closedByApp = true
        retryTask?.cancel()
        refreshTask?.cancel()
        position = PushPosition()
        joined = [:]
        confirmed = []
        if let ending = socket {
            detach(code: 1000, reason: "bye", reconnecting: false)
            Task { await ending.close(code: 1000, reason: "bye") }
        }
    }

    /// Sends one request and waits for its reply; an error reply comes back as `.failure`
    /// (the typed ops throw it as `ErrorBody`).
    /// Until the socket's `connect` succeeded, any other request fails with `.disconnected`.
    public func send(_ request: ClientRequest) async throws -> ReplyOutcome {
        switch request {
        case .leaveSession(let params), .endCall(let params):
            joined.removeValue(forKey: params.sessionId)
        case .rejectCall(let params):
            joined.removeValue(forKey: params.sessionId)
        default:
            break
        }
        let connects = if case .connect = request { true } else { false }
        guard let outgoing, connects || current != nil else { throw CallGateConnectionError.disconnected(code: nil) }
        nextRequestNumber += 1
        let id = "r\(nextRequestNumber)"
        let text = String(decoding: try RequestFrame(id: id, request: request).encoded(), as: UTF8.self)
        if case .connect(let params) = request {
            connecting = (id, params.recover)
        }
        let timeout = configuration.requestTimeout
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await self?.expire(id, op: request.op.rawValue)
        }
        defer { expiry.cancel() }
        let outcome = try await withCheckedThrowingContinuation { continuation in
            pending[id] = continuation
            outgoing.yield(text)
        }
        noteReply(to: request, outcome)
        return outcome
    }

    /// Keeps what a successful reply changes: the sessions joined, the token, the missed calls.
    private func noteReply(to request: ClientRequest, _ outcome: ReplyOutcome) {
        switch request {
        case .joinSession(let params):
            if let result = try? outcome.decodeResult(SessionResult.self) {
                joined[result.session.sessionId] = params.idleTimeout
            }
        case .refreshToken(let params):
            if let result = try? outcome.decodeResult(RefreshTokenResult.self) {
                let later = tokenExpiresAt.map { result.tokenExpiresAt > $0 } ?? true
                token = params.token
                tokenExpiresAt = result.tokenExpiresAt
                current?.tokenExpiresAt = result.tokenExpiresAt
                if later {
                    scheduleRefresh()
                }
            }
        case .markCallsSeen:
            if let count = try? outcome.decodeResult(MissedCalls.self) {
                noteMissedCalls(count)
            }
        default:
            break
        }
    }

    /// Fails request `id` with `.timeout` if it is still waiting.
    private func expire(_ id: String, op: String) {
        pending.removeValue(forKey: id)?.resume(throwing: CallGateConnectionError.timeout(op: op))
    }

    /// Hands `event` to every subscriber.
    func emit(_ event: CallGateEvent) {
        for subscriber in subscribers.values {
            subscriber.yield(event)
        }
    }

    private func unsubscribe(_ number: Int) {
        subscribers.removeValue(forKey: number)
    }

    static func localMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
