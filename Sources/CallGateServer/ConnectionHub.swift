import CallGateCore
import CallGateProtocol
import LWS
import Logging

/// The open sockets, and everything about them that is not about calls: which connections and
/// upgrades are admitted, each connection's handshake phase and message budget
/// (`ConnectionLifecycle`), the `connect` deadline, the close when a token expires, writes and
/// closes, and the logs of the limits enforced. What a message asks for is the service's
/// (`ConnectionHubDelegate`): the hub knows nothing of users' calls.
///
/// libwebsockets calls it as the context's WebSocket delegate and connection filter; the
/// sockets and the timer are protocols (`ClientSocket`, `DeadlineTimer`), so
/// `ConnectionHubTests` drives it without a socket. Service thread only.
final class ConnectionHub {
    /// Every open socket's connection, connected or not, by the Core's connection id.
    private(set) var connections: [ConnectionID: ClientConnection] = [:]
    /// Which connections and upgrades are served, and how many are open.
    private(set) var admission: AdmissionControl
    /// Connections waiting for `connect`, oldest first.
    private var awaitingConnect = AuthDeadlineQueue()
    /// When each connected socket's token expires (the clock's monotonic ms).
    private var tokenExpiries = TimerQueue<ConnectionID>()
    /// One per kind of limit, so that a flood of refusals logs a line per 10 s, not per socket.
    private var limitLogs: [LimitEvent: BurstLog] = [:]
    /// Fires at the earliest `connect` deadline or token expiry; `armedFor` is when. Made on
    /// the service thread the first time it is armed, by `makeTimer`.
    private var timer: (any DeadlineTimer)?
    private var armedFor: Int64?
    let makeTimer: (@escaping () -> Void) -> any DeadlineTimer
    /// Stops a debug build when called off the service thread.
    let assertServiceThread: () -> Void
    private let configuration: ServerConfiguration
    let clock: any CoreClock
    let metrics: GatewayMetrics
    let logger: Logger
    /// The service, which runs what connections ask.
    weak var delegate: (any ConnectionHubDelegate)?
    /// The drain under way or done (`ConnectionHub+Drain`), nil before one began.
    var drain: SocketDrain?

    /// A hub with no socket; `makeTimer` makes its one timer (on the service thread), which
    /// calls the closure it is given; `assertServiceThread` checks each entry's thread.
    init(
        configuration: ServerConfiguration, clock: any CoreClock, metrics: GatewayMetrics, logger: Logger,
        assertServiceThread: @escaping () -> Void, makeTimer: @escaping (@escaping () -> Void) -> any DeadlineTimer
    ) {
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.assertServiceThread = assertServiceThread
        self.makeTimer = makeTimer
        admission = AdmissionControl(configuration: configuration)
    }

    /// The connection of socket `id`, while it is open.
    subscript(id: ConnectionID) -> ClientConnection? {
        connections[id]
    }

    // MARK: Sockets

    /// A socket opened: counted under its client address, given its message budget and its
    /// `connect` deadline.
    @discardableResult
    func opened(_ socket: any ClientSocket) -> ClientConnection {
        assertServiceThread()
        metrics.socketOpened()
        let now = clock.monotonicMillis()
        let deadline = now + configuration.authTimeout.wholeMilliseconds
        let clientAddress = configuration.trustedProxies.clientAddress(
            peer: socket.peerAddress, forwardedFor: socket.forwardedFor)
        let rate = configuration.maxMessagesPerSecond
        let budget = rate > 0 ? TokenBucket(ratePerSecond: rate, burst: rate, now: now) : nil
        let connection = ClientConnection(
            socket: socket, authDeadline: deadline, clientAddress: clientAddress, messageBudget: budget)
        connection.countedAddress = admission.socketOpened(peer: socket.peerAddress, clientAddress: clientAddress)
        logger.debug("socket opened", metadata: ["connection": "\(connection.id)", "client": "\(clientAddress)"])
        connections[connection.id] = connection
        awaitingConnect.append(connection.id, deadline: deadline)
        arm()
        return connection
    }

    /// A frame of socket `id` arrived: every frame counts against its budget
    /// (`maxMessagesPerSecond`). Over it, the socket is closed with 4029 after the output
    /// already waiting for it, and every later frame of it is dropped. Returns whether to take it.
    func frameArrived(on id: ConnectionID) -> Bool {
        assertServiceThread()
        guard let connection = connections[id] else { return false }
        switch connection.life.spendMessage(now: clock.monotonicMillis()) {
        case .take:
            return true
        case .drop:
            return false
        case .closeOverRate:
            noteLimit(.rateLimited, metadata: ["address": "\(connection.clientAddress)", "connection": "\(connection.id)"])
            delegate?.closeAfterOutput(connection.id, code: CloseCode.rateLimited, reason: "too many messages")
            return false
        }
    }

    /// Socket `socket` closed: it leaves the hub and its counts, and its connection is returned,
    /// nil for one the hub did not hold.
    @discardableResult
    func closed(_ socket: any ClientSocket) -> ClientConnection? {
        assertServiceThread()
        metrics.socketClosed(code: CloseCodeLabel.label(
            local: socket.localCloseCode, peer: socket.peerCloseCode, peerSentClose: socket.peerSentClose))
        guard let connection = connections.removeValue(forKey: ConnectionID(socket.id)) else { return nil }
        if let timer = connection.expiryTimer {
            tokenExpiries.cancel(timer)
            connection.expiryTimer = nil
        }
        if let address = connection.countedAddress {
            admission.socketClosed(countedUnder: address)
        }
        if drain != nil, connections.isEmpty {
            drainTick()
        }
        return connection
    }

    // MARK: Token life

    /// `connection` passed `connect` with a token that expires at `expiresAt` (Unix seconds):
    /// it is closed with 4003 then.
    func connected(_ connection: ClientConnection, until expiresAt: Int64) {
        if connection.life.connected(until: expiresAt) {
            scheduleExpiry(of: connection)
        }
    }

    /// A refreshed token of `connection` expires at `expiresAt`: it stays open until then, unless
    /// it may already stay longer (see `ConnectionLifecycle.extend`).
    func extend(_ connection: ClientConnection, until expiresAt: Int64) {
        if connection.life.extend(until: expiresAt) {
            scheduleExpiry(of: connection)
        }
    }

    private func scheduleExpiry(of connection: ClientConnection) {
        if let timer = connection.expiryTimer {
            tokenExpiries.cancel(timer)
        }
        let remaining = max(0, connection.life.tokenExpiresAt * 1000 - clock.nowMillis())
        connection.expiryTimer = tokenExpiries.schedule(connection.id, at: clock.monotonicMillis() + remaining)
        arm()
    }

    /// Closes, with 4001, every socket whose `connect` deadline passed and, with 4003, every
    /// socket whose token expired; then waits for the next. The timer calls it.
    func closeOverdue() {
        assertServiceThread()
        armedFor = nil
        let now = clock.monotonicMillis()
        for id in awaitingConnect.popExpired(now: now) {
            guard let connection = connections[id], !connection.isConnected else { continue }
            logger.debug("closing socket that did not connect in time", metadata: ["connection": "\(id)"])
            metrics.authFailed(.connectTimeout)
            connection.socket.close(code: CloseCode.unauthorized, reason: "connect timeout", flushFirst: true)
        }
        while let id = tokenExpiries.popDue(now: now) {
            guard let connection = connections[id] else { continue }
            connection.expiryTimer = nil
            logger.info(
                "closing socket whose token expired", metadata: ["connection": "\(id)", "uid": "\(connection.uid ?? "")"])
            metrics.authFailed(.tokenExpired)
            connection.socket.close(code: CloseCode.tokenExpired, reason: "token expired", flushFirst: true)
        }
        arm()
    }

    /// Points the timer at the earliest deadline, unless it fires at or before it already: a
    /// timer that fires early (its deadline went with its socket) finds nothing and re-arms. A
    /// schedule the timer did not take (the loop is not running) is not counted as armed.
    private func arm() {
        let next = switch (awaitingConnect.nextDeadline, tokenExpiries.nextDeadline()) {
        case (let connect?, let expiry?): min(connect, expiry)
        case (let deadline?, nil), (nil, let deadline?): deadline
        case (nil, nil): Int64?.none
        }
        guard let next else { return }
        if let armedFor, armedFor <= next { return }
        let timer = timer ?? makeTimer { [unowned self] in closeOverdue() }
        self.timer = timer
        if timer.schedule(afterMicroseconds: max(0, next - clock.monotonicMillis()) * 1000) {
            armedFor = next
        }
    }

    /// The earliest moment (monotonic ms) the timer is set to fire, nil when it is not set.
    var nextDeadline: Int64? { armedFor }

    // MARK: Output

    /// Hands `frame` to the socket of connection `id`; returns whether it was written or queued
    /// (false too when the connection is gone). When this frame overflows the socket's queue
    /// (which closes it with 4008), counts it and the frames the close discards as dropped; a
    /// socket whose write failed is not a slow consumer.
    func write(_ frame: OutboundFrame, to id: ConnectionID) -> Bool {
        guard let socket = connections[id]?.socket else { return false }
        let wasClosing = socket.isClosing
        let waiting = socket.queuedFrames
        if socket.send(frame) {
            return true
        }
        if !wasClosing && socket.localCloseCode == CloseCode.tooSlow {
            metrics.framesDropped(waiting + 1)
        }
        return false
    }

    /// Closes the socket of connection `id` with `code`, after what is queued on it.
    func close(_ id: ConnectionID, code: UInt16, reason: String) {
        connections[id]?.socket.close(code: code, reason: reason, flushFirst: true)
    }

    /// Closes the socket of connection `id` with 4008 at once, dropping what it has queued and
    /// the `held` outputs that wait for the store: it has too much output waiting.
    func closeTooSlow(_ id: ConnectionID, held: Int) {
        guard let socket = connections[id]?.socket, !socket.isClosing else { return }
        metrics.framesDropped(socket.queuedFrames + held + 1)
        socket.close(code: CloseCode.tooSlow, reason: "too much output waiting for the store", flushFirst: false)
    }

    // MARK: Limits

    /// Logs that `event` happened, once per burst: the first at once, the rest counted into one
    /// line per 10 s.
    func noteLimit(_ event: LimitEvent, metadata: Logger.Metadata) {
        guard let count = limitLogs[event, default: BurstLog(periodMillis: 10_000)].record(now: clock.monotonicMillis()) else {
            return
        }
        var metadata = metadata
        metadata["count"] = "\(count)"
        logger.warning("\(event.logMessage)", metadata: metadata)
    }
}

/// libwebsockets' side: the hub is the context's WebSocket delegate and connection filter.
extension ConnectionHub: WebSocketDelegate, ConnectionFilter, UpgradeFilter {
    func webSocketDidOpen(_ socket: WebSocketConnection) {
        opened(socket)
    }

    func webSocketDidReceiveFrame(_ socket: WebSocketConnection) -> Bool {
        frameArrived(on: ConnectionID(socket.id))
    }

    func webSocket(_ socket: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        received(message, binary: binary, on: ConnectionID(socket.id))
    }

    func webSocketDidClose(_ socket: WebSocketConnection, error: String?) {
        socketClosed(socket)
    }

    /// `socket` closed: it leaves the hub (`closed`), then the service hears of it.
    func socketClosed(_ socket: any ClientSocket) {
        guard let connection = closed(socket) else { return }
        delegate?.closed(connection)
    }

    /// A whole message of socket `id` arrived, as libwebsockets hands it on.
    func received(_ message: [UInt8], binary: Bool, on id: ConnectionID) {
        metrics.frameReceived()
        guard let connection = connections[id] else { return }
        delegate?.received(message, binary: binary, from: connection)
    }

    /// Counts every accepted TCP connection; one that passes the process's cap (503) or its
    /// address's (429) gets that answer to its first request.
    func shouldServe(connectionFrom peerAddress: String) -> UpgradeDecision {
        assertServiceThread()
        guard let limit = admission.accepted(peer: peerAddress) else { return .accept }
        noteLimit(limit, metadata: ["address": "\(peerAddress)"])
        return limit.refusal.upgradeRefusal
    }

    func connectionEnded(from peerAddress: String) {
        assertServiceThread()
        admission.ended(peer: peerAddress)
    }

    /// Refuses an upgrade while the node drains or the service takes no sockets (503: the
    /// client should try another node), from an Origin not allowed (403), or through a trusted proxy for a client
    /// address at its cap (429; such sockets are counted in `opened`).
    func shouldUpgrade(_ request: UpgradeRequest) -> UpgradeDecision {
        assertServiceThread()
        if let reason = drainRefusal ?? delegate?.refusesSockets() {
            return HTTPResponse.error(503, .notReady, reason).upgradeRefusal
        }
        let address = configuration.trustedProxies.clientAddress(
            peer: request.clientAddress, forwardedFor: request.forwardedFor)
        guard let limit = admission.upgradeRefusal(origin: request.origin, peer: request.clientAddress, clientAddress: address)
        else { return .accept }
        noteLimit(limit, metadata: ["address": "\(address)", "origin": "\(request.origin ?? "-")"])
        return limit.refusal.upgradeRefusal
    }
}

extension HTTPResponse {
    /// This response as the refusal of a WebSocket upgrade, which lws writes in place of the 101.
    var upgradeRefusal: UpgradeDecision {
        .refuse(status: status, contentType: contentType ?? Self.jsonContentType, body: body)
    }
}

/// What the hub hands to the service: the messages of its connections, the ones that close,
/// and whether the node takes sockets at all. Service thread only.
protocol ConnectionHubDelegate: AnyObject {
    /// Why this node takes no new sockets now (a cluster node not joined, or suspended: the
    /// client should try another), nil when it does.
    func refusesSockets() -> String?
    /// A whole message of `connection` arrived: text, or `binary`.
    func received(_ message: [UInt8], binary: Bool, from connection: ClientConnection)
    /// `connection`'s socket closed; it is gone from the hub.
    func closed(_ connection: ClientConnection)
    /// Closes connection `id` with `code`, after the output already waiting for it.
    func closeAfterOutput(_ id: ConnectionID, code: UInt16, reason: String)
}

/// What the hub needs of a socket: `WebSocketConnection`, or a test's.
protocol ClientSocket: AnyObject {
    var id: UInt64 { get }
    /// The TCP peer's address.
    var peerAddress: String { get }
    /// The `X-Forwarded-For` it came with, if any.
    var forwardedFor: String? { get }
    var isClosing: Bool { get }
    var queuedFrames: Int { get }
    var localCloseCode: UInt16? { get }
    var peerCloseCode: UInt16? { get }
    var peerSentClose: Bool { get }
    /// Writes or queues `frame`; false when the socket is closing or its queue overflowed.
    func send(_ frame: OutboundFrame) -> Bool
    /// Closes with `code`, after what is queued when `flushFirst`.
    func close(code: UInt16, reason: String, flushFirst: Bool)
}

/// A one-shot timer, re-armable: `LoopTimer`, or a test's.
protocol DeadlineTimer: AnyObject {
    /// Fires once after `microseconds`, replacing any earlier schedule; false when it cannot
    /// be armed (its loop is not running).
    func schedule(afterMicroseconds microseconds: Int64) -> Bool
}

extension WebSocketConnection: ClientSocket {}
extension LoopTimer: DeadlineTimer {}
