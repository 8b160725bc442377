import CallGateCore
import CallGateProtocol
import Foundation
import LWS
import Logging

/// The gateway on its service thread: takes socket events and HTTP requests from libwebsockets,
/// runs them through the Core, has the store write what changed, and sends each reply and push
/// once the writes it depends on are durable.
///
/// All state is confined to the service thread of `context`; the only entry from other threads
/// is work they `post` to it (token checks, store commits and reads coming back). Hence
/// `@unchecked Sendable`.
final class GatewayService: @unchecked Sendable {
    let configuration: ServerConfiguration
    let context: LWSContext
    let core: GatewayCore
    let clock: any CoreClock
    let tokens: TokenService
    let groups: JournaledGroupStore
    let router: AdminRouter
    /// The web softphone demo's files and development tokens, when turned on.
    let webApp: WebAppRouter
    let logger: Logger
    /// This server's metrics, served at `GET /metrics`.
    let metrics: GatewayMetrics
    /// Which call log changes finish a rung call, for `callgate_calls_finished_total`.
    var finishedCalls = FinishedCallTracker()
    /// Where call logs and groups are kept; read off the service thread, written by `writer`.
    let store: any CallLogStore
    /// Runs store reads for the call log API, off the service thread.
    let storeReads = DispatchQueue(label: "callgate.store-reads", attributes: .concurrent)
    /// Every open socket, connected or not, by the Core's connection id.
    var sockets: [ConnectionID: WebSocketConnection] = [:]
    /// Sockets in the order they opened, for the `connect` deadline sweep.
    var authQueue = AuthDeadlineQueue()
    /// Output waiting for store writes to commit.
    var gate = OutputGate<HeldOutput>()
    /// The write the output being produced now must wait for (0: none); see `beginOutput`.
    var barrier: UInt64 = 0
    /// Session id -> the sequence number of its terminal status write, until it is durable.
    var pendingTerminal: [String: UInt64] = [:]
    /// Which upgrades may proceed (origins, socket caps) and how many sockets are open.
    var admission: AdmissionControl
    /// One per kind of limit, so that a flood of refusals logs a line per 10 s, not per socket.
    var limitLogs: [LimitEvent: BurstLog] = [:]
    /// Fires when the Core's earliest timer is due.
    lazy var coreTimer = context.makeTimer { [unowned self] in self.fireCoreTimers() }
    /// Fires when the oldest socket still waiting for `connect` runs out of time.
    lazy var authTimer = context.makeTimer { [unowned self] in self.closeUnauthenticated() }
    /// When each connected socket's token expires (monotonic ms); see `closeExpired`.
    var tokenExpiries = TimerQueue<ConnectionID>()
    /// Fires when the earliest token in `tokenExpiries` expires.
    lazy var expiryTimer = context.makeTimer { [unowned self] in self.closeExpired() }
    /// Writes the Core's call log changes and the group changes, in order.
    lazy var writer = CallLogWriter(
        store: store, deadLetterPath: configuration.deadLetterPath, logger: logger, metrics: metrics.store,
        probeInterval: configuration.storeProbeInterval
    ) { [unowned self] sequence in
        context.post { [unowned self] in self.release(upTo: sequence) }
    }

    /// A service over `store`, with the groups it holds. Call `resume` before the context starts.
    init(
        configuration: ServerConfiguration, context: LWSContext, tokens: TokenService, groups: [GroupRecord],
        logger: Logger, metrics: GatewayMetrics
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.context = context
        self.tokens = tokens
        self.logger = logger
        store = configuration.store
        clock = SystemClock()
        self.groups = JournaledGroupStore(groups)
        core = GatewayCore(configuration: configuration.core, clock: clock, groups: self.groups)
        router = AdminRouter(groups: self.groups, adminKey: configuration.adminKey, tokens: tokens)
        webApp = WebAppRouter(servesFiles: configuration.servesWebApp, mintsDevTokens: configuration.mintsDevTokens)
        admission = AdmissionControl(configuration: configuration)
    }

    /// Takes back the calls a previous run left open and writes what that changed (calls whose
    /// ring timeout passed meanwhile are closed) before anyone can read the log. Call once,
    /// before the context starts; throws when the store cannot write.
    func resume(openCalls: [CallLogRecord], lastCallID: Int64) throws {
        core.restore(openCalls: openCalls, lastCallID: lastCallID)
        finishedCalls = FinishedCallTracker(openCalls: openCalls, lastCallID: lastCallID)
        let changes = core.takeCallLogChanges()
        try store.apply(changes.map(StoreWrite.call))
        countFinishedCalls(changes)
    }

    /// Sends a Core outcome: the reply to the asking socket first, then every push.
    func send(_ outcome: CallOutcome, replyTo requestID: String, on connection: WebSocketConnection) {
        persistChanges()
        reply(outcome.reply, to: requestID, on: connection)
        deliver(outcome.deliveries)
    }

    /// Sends a Core result as the reply to one request: its value, or its error.
    func reply(_ result: Result<some Encodable, CoreError>, to requestID: String, on connection: WebSocketConnection) {
        switch result {
        case .success(let value):
            transmit(OutboundFrame(ReplyFrame.success(id: requestID, result: value)), to: connection)
        case .failure(let error):
            fail(connection, requestID: requestID, code: error.code, message: error.message)
        }
    }

    /// Encodes each push once and queues the same bytes to every recipient socket.
    func deliver(_ deliveries: [Delivery]) {
        persistChanges()
        for delivery in deliveries {
            let bytes: Data
            do {
                bytes = try delivery.push.encodedFrame()
            } catch {
                logger.error(
                    "push not sent: it could not be encoded",
                    metadata: ["event": "\(delivery.push.event.rawValue)", "error": "\(error.description)"])
                continue
            }
            let frame = OutboundFrame(bytes)
            metrics.pushesDelivered(delivery.push.event, count: delivery.connections.count)
            for id in delivery.connections {
                emit(.frame(id, frame))
            }
        }
        armCoreTimer()
    }

    /// Replies with an error to a request (or to an unreadable frame when `requestID` is nil).
    func fail(_ connection: WebSocketConnection, requestID: String?, code: ErrorCode, message: String) {
        transmit(OutboundFrame(ReplyFrame.failure(id: requestID, code: code, message: message)), to: connection)
    }

    /// Queues `frame` to `connection`, behind any output waiting for the store.
    func transmit(_ frame: OutboundFrame, to connection: WebSocketConnection) {
        emit(.frame(ConnectionID(connection.id), frame))
    }

    /// Runs `work` off the service thread (token checks: jwt-kit is async), then `finish` with
    /// its result back on the service thread, through the mailbox.
    func offServiceThread<Value: Sendable>(
        _ work: @escaping @Sendable () async -> Value, then finish: @escaping @Sendable (Value) -> Void
    ) {
        let context = context
        Task {
            let value = await work()
            context.post {
                context.assertOnServiceThread()
                finish(value)
            }
        }
    }

    /// Points the Core timer at the Core's earliest deadline.
    func armCoreTimer() {
        guard let deadline = core.nextDeadline else {
            coreTimer.cancel()
            return
        }
        coreTimer.schedule(afterMicroseconds: max(0, deadline - clock.monotonicMillis()) * 1000)
    }

    private func fireCoreTimers() {
        beginOutput()
        deliver(core.fireDueTimers())
    }
}
