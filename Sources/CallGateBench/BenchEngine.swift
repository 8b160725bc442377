import CallGateProtocol
import Foundation
import LWS

/// Runs a scenario's sockets on one libwebsockets client context: connects them, hands their
/// frames to the scenario driver, paces it, and reports once it is over.
///
/// Everything here runs on the context's service thread (one thread, no locks, no task per
/// socket); other threads only reach it through `LWSContext.post`. `@unchecked Sendable` only so
/// that the closures posted to that thread may capture it.
final class BenchEngine: WebSocketDelegate, @unchecked Sendable {
    /// Handshakes in flight during the connect phase. The `connect` latency is roughly this
    /// window divided by the server's connect rate (everything in flight waits for the same
    /// token checks), so a small window keeps it meaningful; at 64 the server is still the
    /// bottleneck, not the generator.
    static let connectWindow = 64
    /// Work stuck this long is given up and counted as `STALLED`.
    static let stallNanoseconds: UInt64 = 10_000_000_000
    /// After the duration, how long calls under way may take to finish.
    static let drainNanoseconds: UInt64 = 10_000_000_000
    /// Closing handshakes in flight at the end of a run. lws keeps each closing socket's timers
    /// in one sorted list, so closing 19,000 sockets at once costs seconds of CPU; a window keeps
    /// that list short.
    static let closeWindow = 256
    /// The longest the closing at the end may take before the context is simply stopped.
    static let closeMicroseconds: Int64 = 30_000_000

    private enum Phase {
        case idle, connecting, running, draining, finished
    }

    let context: LWSContext
    let configuration: BenchConfiguration
    let sockets: [BenchSocket]
    let metrics = BenchMetrics()
    private(set) var driver: (any ScenarioDriver)!
    private let progress: (@Sendable (String) -> Void)?
    private var completion: ((EngineOutcome) -> Void)?
    private var phase = Phase.idle
    private var nextToOpen = 0
    private var inFlight = 0
    private var resolved = 0
    private var window = 1
    private var firstFailure: String?
    private var authRefused = false
    private var connectStart: UInt64 = 0
    private var connectEnd: UInt64 = 0
    private var scenarioStart: UInt64 = 0
    private var scenarioEnd: UInt64 = 0
    private var stopAt: UInt64 = 0
    private var drainDeadline: UInt64 = 0
    private var tickTimer: LoopTimer?
    private var secondTimer: LoopTimer?
    private var toClose: [BenchSocket] = []
    private var closing = 0
    private var closeTimer: LoopTimer?
    private var closed: (() -> Void)?

    /// An engine for `sockets` on `context`; `makeDriver` builds the scenario's driver.
    init(
        context: LWSContext, configuration: BenchConfiguration, sockets: [BenchSocket],
        progress: (@Sendable (String) -> Void)?, makeDriver: (BenchEngine) -> any ScenarioDriver
    ) {
        self.context = context
        self.configuration = configuration
        self.sockets = sockets
        self.progress = progress
        driver = makeDriver(self)
    }

    /// Starts the connect phase; `completion` runs once, on the service thread, when the run is
    /// over. Service thread.
    func start(completion: @escaping (EngineOutcome) -> Void) {
        self.completion = completion
        phase = .connecting
        connectStart = MonotonicClock.now()
        secondTimer = context.makeTimer { [unowned self] in everySecond() }
        secondTimer?.schedule(afterMicroseconds: 1_000_000)
        openMore()
    }

    /// After the run: closes every open socket with a normal close handshake, a window at a
    /// time, and calls `completion` once all are closed (or after `closeMicroseconds`). The
    /// handshake lets the server close the TCP connection first, so TIME_WAIT stays on its side
    /// and does not eat this host's ephemeral ports for the next run. Service thread.
    func closeAll(completion: @escaping () -> Void) {
        closed = completion
        toClose = sockets.filter { $0.connection != nil }.reversed()
        closeTimer = context.makeTimer { [unowned self] in allClosed() }
        closeTimer?.schedule(afterMicroseconds: Self.closeMicroseconds)
        closeMore()
    }

    private func closeMore() {
        while closing < Self.closeWindow, let socket = toClose.popLast() {
            guard let connection = socket.connection else { continue }
            closing += 1
            socket.state = .closing
            connection.close(code: 1000, reason: "bench over")
        }
        if closing == 0 && toClose.isEmpty { allClosed() }
    }

    private func allClosed() {
        closeTimer?.cancel()
        closed?()
        closed = nil
    }

    // MARK: sockets, for the drivers

    /// Queues a frame on a ready socket. A client frame is masked in place when written, so
    /// every send gets its own `OutboundFrame`.
    func send(_ bytes: [UInt8], on socket: BenchSocket) {
        guard socket.state == .ready, let connection = socket.connection else {
            metrics.error("SOCKET_NOT_READY")
            return
        }
        metrics.counts.framesSent += 1
        if !connection.send(OutboundFrame(bytes)) {
            metrics.error("SEND_FAILED")
        }
    }

    /// Closes a ready socket on purpose (churn); the driver hears `closed` when it is gone.
    func close(_ socket: BenchSocket) {
        guard socket.state == .ready, let connection = socket.connection else { return }
        socket.state = .closing
        connection.close(code: 1000, reason: "churn")
    }

    /// Opens a closed socket again (churn); the driver hears `ready` once it authenticated.
    func reopen(_ socket: BenchSocket) {
        guard socket.state == .closed else { return }
        open(socket, reopening: true)
    }

    // MARK: WebSocketDelegate

    func webSocketDidOpen(_ connection: WebSocketConnection) {
        guard let socket = connection.attachment as? BenchSocket, socket.state == .opening else { return }
        socket.state = .authenticating
        metrics.counts.framesSent += 1
        connection.send(OutboundFrame(socket.connectFrame))
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        guard phase != .finished, let socket = connection.attachment as? BenchSocket else { return }
        metrics.counts.framesReceived += 1
        let now = MonotonicClock.now()
        let fields = FrameScanner.scan(message)
        guard fields.isReadable else {
            metrics.error("UNREADABLE_FRAME")
            return
        }
        if fields.event != nil {
            let kind = PushKind(fields)
            // Every missed ring raises its callees' count of missed calls: counted, not followed.
            if kind == .missedCallsChanged {
                metrics.counts.missedCallCounts += 1
            } else {
                driver.push(kind, on: socket, fields: fields, now: now)
            }
            return
        }
        if let code = fields.errorCode.map({ _ in fields.errorCodeText ?? "" }) {
            metrics.error(code)
        }
        guard let prefix = fields.idPrefix, let kind = RequestKind(rawValue: prefix) else {
            if fields.errorCode == nil { metrics.error("UNMATCHED_REPLY") }
            return
        }
        if kind == .connect {
            connectReplied(socket, fields: fields, now: now)
        } else {
            driver.reply(kind, on: socket, fields: fields, now: now)
        }
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        guard let socket = connection.attachment as? BenchSocket else { return }
        socket.connection = nil
        socket.closeReason = connection.peerCloseReason
        socket.closeCode = CloseCode.seen(connection.peerCloseCode, reason: connection.peerCloseReason)
        let previous = socket.state
        socket.state = previous == .failed ? .failed : .closed
        guard phase != .finished else {
            if closed != nil, previous == .closing {
                closing -= 1
                closeMore()
            }
            return
        }
        let now = MonotonicClock.now()
        switch previous {
        case .opening, .authenticating:
            let code = connection.peerCloseCode.map { " (close code \($0))" } ?? ""
            connectFailed(socket, reason: (error ?? "closed during the handshake") + code)
        case .ready, .closing:
            if !driver.closed(socket, now: now) {
                metrics.error("CLOSED_" + (connection.peerCloseCode.map(String.init) ?? "NO_CODE"))
            }
        case .closed, .failed:
            break
        }
    }

    // MARK: connecting

    private func open(_ socket: BenchSocket, reopening: Bool) {
        socket.state = .opening
        socket.reopening = reopening
        socket.openedAt = MonotonicClock.now()
        var target = ClientTarget(
            host: configuration.host, port: socket.port ?? configuration.port(for: socket.index), path: WireEndpoint.path)
        target.sourceAddress = socket.sourceAddress
        do {
            let connection = try context.connect(to: target, attachment: socket)
            if socket.state == .opening || socket.state == .authenticating {
                socket.connection = connection
            }
        } catch {
            if socket.state == .opening {
                socket.state = .closed
                connectFailed(socket, reason: String(describing: error))
            }
        }
    }

    /// Opens sockets until the window is full; connect phase only.
    private func openMore() {
        while phase == .connecting, inFlight < window, nextToOpen < sockets.count {
            let socket = sockets[nextToOpen]
            nextToOpen += 1
            inFlight += 1
            open(socket, reopening: false)
        }
    }

    private func connectReplied(_ socket: BenchSocket, fields: FrameFields, now: UInt64) {
        guard socket.state == .authenticating else { return }
        guard fields.hasResult else {
            if fields.errorCodeText == ErrorCode.authError.rawValue { authRefused = true }
            socket.state = .failed
            connectFailed(socket, reason: "connect answered \(fields.errorCodeText ?? "an error")")
            return
        }
        socket.state = .ready
        metrics.record(socket.reopening ? .reconnect : .connect, from: socket.openedAt, to: now)
        if socket.reopening {
            metrics.counts.reconnects += 1
            driver.ready(socket, now: now)
            return
        }
        if socket.index < 1_000 {
            metrics.record(.connectFirst1000, from: socket.openedAt, to: now)
        }
        if socket.index >= sockets.count - 1_000 {
            metrics.record(.connectLast1000, from: socket.openedAt, to: now)
        }
        metrics.counts.connected += 1
        resolvedOne(success: true)
    }

    private func connectFailed(_ socket: BenchSocket, reason: String) {
        if socket.reopening {
            metrics.error("RECONNECT_FAILED")
            return
        }
        guard phase == .connecting else { return }
        if socket.state != .failed { socket.state = .failed }
        metrics.error("CONNECT_FAILED")
        metrics.counts.connectFailures += 1
        if firstFailure == nil { firstFailure = reason }
        resolvedOne(success: false)
    }

    private func resolvedOne(success: Bool) {
        inFlight -= 1
        resolved += 1
        if resolved == 1 {
            guard success else {
                finish(failure: failureReason())
                return
            }
            window = Self.connectWindow
        }
        if resolved == sockets.count {
            connectPhaseDone()
        } else {
            openMore()
        }
    }

    private func failureReason() -> BenchError {
        let endpoint = "ws://\(configuration.host):\(configuration.port)\(WireEndpoint.path)"
        if authRefused {
            return BenchError("the gateway at \(endpoint) refused the token (AUTH_ERR): is --jwt-secret the secret it runs with?")
        }
        return BenchError("cannot connect to \(endpoint): \(firstFailure ?? "no socket connected")")
    }

    private func connectPhaseDone() {
        connectEnd = MonotonicClock.now()
        guard metrics.counts.connected > 0 else {
            finish(failure: failureReason())
            return
        }
        phase = .running
        scenarioStart = connectEnd
        stopAt = scenarioStart + UInt64(configuration.duration * 1_000_000_000)
        driver.start(now: scenarioStart)
        tickTimer = context.makeTimer { [unowned self] in tick() }
        tickTimer?.schedule(afterMicroseconds: driver.tickMicroseconds)
    }

    // MARK: pacing

    private func tick() {
        let now = MonotonicClock.now()
        switch phase {
        case .running:
            if now >= stopAt {
                phase = .draining
                drainDeadline = now + Self.drainNanoseconds
                driver.stopStarting()
            } else {
                driver.tick(now: now)
            }
        case .draining:
            break
        case .idle, .connecting, .finished:
            return
        }
        if phase == .draining, driver.isDrained || now >= drainDeadline {
            if !driver.isDrained { metrics.error("DRAIN_TIMEOUT") }
            scenarioEnd = now
            finish(failure: nil)
            return
        }
        tickTimer?.schedule(afterMicroseconds: driver.tickMicroseconds)
    }

    private func everySecond() {
        guard phase != .finished else { return }
        let now = MonotonicClock.now()
        if phase == .running || phase == .draining {
            driver.abandonStalled(now: now, limit: Self.stallNanoseconds)
        }
        if let progress {
            progress(progressLine(now: now))
        }
        secondTimer?.schedule(afterMicroseconds: 1_000_000)
    }

    private func progressLine(now: UInt64) -> String {
        let errors = metrics.errorTotal
        switch phase {
        case .connecting, .idle:
            let seconds = Double(now - connectStart) / 1e9
            let rate = seconds > 0 ? Double(metrics.counts.connected) / seconds : 0
            return "[\(configuration.scenario.rawValue)] connecting \(metrics.counts.connected)/\(sockets.count) (\(Int(rate))/s), errors \(errors)"
        case .running, .draining, .finished:
            let elapsed = Double(now - scenarioStart) / 1e9
            let shown = min(elapsed, configuration.duration)
            let state = phase == .draining ? "draining" : String(format: "%.0f/%.0fs", shown, configuration.duration)
            return "[\(configuration.scenario.rawValue)] \(state) sockets \(metrics.counts.connected) \(driver.progressText(elapsedSeconds: max(elapsed, 0.001))), errors \(errors)"
        }
    }

    private func finish(failure: BenchError?) {
        guard phase != .finished else { return }
        phase = .finished
        tickTimer?.cancel()
        secondTimer?.cancel()
        if connectEnd == 0 { connectEnd = MonotonicClock.now() }
        let outcome = EngineOutcome(
            snapshot: metrics.snapshot(),
            connectSeconds: Double(connectEnd - connectStart) / 1e9,
            scenarioSeconds: scenarioEnd > scenarioStart ? Double(scenarioEnd - scenarioStart) / 1e9 : 0,
            failure: failure)
        completion?(outcome)
        completion = nil
    }
}

/// How the bench loop's part of a run ended: its measurements and phase lengths, or why it could
/// not run at all.
struct EngineOutcome: Sendable {
    var snapshot: MetricsSnapshot
    /// First open until every socket was connected or had failed.
    var connectSeconds: Double
    /// Scenario start until the last call finished (the duration plus the drain).
    var scenarioSeconds: Double
    /// Set when no socket could connect or authenticate: the run did not happen.
    var failure: BenchError?
}

/// One simulated device: a user's socket and where it stands. Service thread of the bench loop.
///
/// A plain object per socket (no task, no lock, no buffer of its own), so that 19,000 of them
/// cost little more than libwebsockets' own per-connection state.
final class BenchSocket {
    /// Where a socket stands.
    enum State {
        /// Not open (before the first open, or after a close).
        case closed
        /// TCP and WebSocket handshake under way.
        case opening
        /// `connect` sent, reply not yet in.
        case authenticating
        /// Authenticated: may ring and be rung.
        case ready
        /// Closed on purpose (churn), waiting for the close to finish.
        case closing
        /// The connect phase gave up on it (refused, or `AUTH_ERR`).
        case failed
    }

    /// Its position: user `u<index>`.
    let index: Int
    /// The `connect` frame with its token, built once and sent again on every reconnect. Kept as
    /// bytes: lws masks a client frame's payload in place, so an `OutboundFrame` is good for
    /// one send only.
    let connectFrame: [UInt8]
    /// Local address to connect from, or nil.
    let sourceAddress: String?
    var state = State.closed
    var connection: WebSocketConnection?
    /// When the current open started (monotonic ns), for the connect latency.
    var openedAt: UInt64 = 0
    /// Whether the current open is a reconnect (churn) rather than the connect phase.
    var reopening = false
    /// The gateway it connects to when set (drain: moved off a draining one); else the one
    /// `BenchConfiguration.port(for:)` gives its index.
    var port: Int?
    /// How the server last closed it: the close code (libwebsockets' 1002 for a 1012 read back
    /// as 1012) and the reason.
    var closeCode: UInt16?
    var closeReason: String?

    init(index: Int, token: String, sourceAddress: String?) {
        self.index = index
        self.connectFrame = RequestFrames.connect(token: token)
        self.sourceAddress = sourceAddress
    }
}
