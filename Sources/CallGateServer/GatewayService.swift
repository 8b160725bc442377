import CallGateCluster
import CallGateCore
import CallGateProtocol
import DequeModule
import Foundation
import LWS
import Logging

/// The gateway on its service thread: takes socket events and HTTP requests from libwebsockets,
/// runs them through the Core, and carries out each `Outcome`: the store writes what changed,
/// and the reply and pushes go to the sockets once the writes they depend on are durable.
///
/// Threads (docs/architecture.md): all state here is confined to the service thread of
/// `context`, checked by `context.assertOnServiceThread()` at every entry. Other work runs
/// elsewhere and comes back through `context.post`: token checks and signing on Swift
/// concurrency's pool (`offServiceThread`), call log reads on `storeReads`, and commits on the
/// writer's thread (`StorePipeline`). Hence `@unchecked Sendable`.
///
/// The extensions: `+WebSocket` (socket lifecycle and request dispatch), `+Tokens` (connect,
/// refresh, expiry, call tokens), `+Recovery` (the push history a reconnecting device is given
/// what it missed from), `+Output` (the one path from an outcome to the sockets),
/// `+HTTP` (call log API, admin, monitoring) and `+Admission` (which connections are served);
/// in cluster mode `+Cluster` (joining, re-registering, reconciling), `+Routing` (ops to their
/// call's owner), `+Presence` (where each user's devices are), `+Pushes` (pushes through Redis,
/// numbered per user), `+Busy`, `+ActiveCalls`, `+ClusterGroups` and `+Takeover`.
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
    /// Where call logs and groups are kept; read off the service thread, written by `pipeline`.
    let store: any CallLogStore
    /// Runs store reads for the call log API, off the service thread.
    let storeReads = DispatchQueue(label: "callgate.store-reads", attributes: .concurrent)
    /// Each user's recent pushes, numbered, for devices that reconnect (`+Recovery`).
    let history: any PushHistory
    /// Posts the webhook outbox's deliveries, on its own thread; started by `init`.
    lazy var webhooks = WebhookDispatcher(
        outbox: store, configuration: configuration.webhooks, node: configuration.cluster?.nodeID ?? "local",
        clustered: configuration.cluster != nil, clock: clock, metrics: metrics.webhooks, logger: logger
    ) { [unowned self] active in
        context.post { [unowned self] in webhooksActive = active }
    }
    /// Whether some webhook endpoint is enabled: only then do outcomes put their events in the
    /// outbox (the store checks each event's type against the endpoints in the transaction).
    /// The dispatcher keeps it in step with the store, where any node may change the endpoints.
    var webhooksActive: Bool
    /// Every open socket's connection, connected or not, by the Core's connection id: the one
    /// registry of sockets in the service.
    var connections: [ConnectionID: ClientConnection] = [:]
    /// Connections in the order they opened, for the `connect` deadline sweep.
    var authQueue = AuthDeadlineQueue()
    /// Which upgrades may proceed (origins, socket caps) and how many sockets are open.
    var admission: AdmissionControl
    /// One per kind of limit, so that a flood of refusals logs a line per 10 s, not per socket.
    var limitLogs: [LimitEvent: BurstLog] = [:]
    /// Cluster mode: the call ids reserved from the shared store (the Core takes from them).
    let reservedCallIDs: ReservedCallIDs?
    /// This node's place in the cluster; nil for a single process (`+Cluster`).
    var cluster: ClusterNode?
    /// Gives up on joining the cluster at start (`+Cluster`).
    var joinTimer: LoopTimer?
    /// Cluster mode: devices of other nodes that forwarded ops on calls this node owns or were
    /// announced to it, with the node that holds each; the Core runs them as devices until they
    /// depart or their lease lapses (`+Presence`).
    var remoteDevices = RemoteDevices()
    /// Cluster mode: departures that did not reach the node that ran the device yet (`+Presence`).
    var departures: Set<Departure> = []
    /// Sends the waiting departures again.
    lazy var departureRetry = context.makeTimer { [unowned self] in self.sendDeparturesAgain() }
    /// Renews the leases of this node's devices run by others, and judges those of others.
    lazy var leaseTimer = context.makeTimer { [unowned self] in self.renewLeases() }
    /// Cluster mode: since when (the Core's monotonic ms) this node's subscription is up; nil
    /// while it is down.
    var busHeardSince: Int64?
    /// Cluster mode: users whose presence Redis did not take, written again once it is back.
    var unwrittenPresence: Set<String> = []
    /// Cluster mode: the ops this node forwarded to the owners of their calls, waiting for the
    /// answers (`+Routing`).
    var forwards = ForwardedRequests()
    /// The live nodes as the last heartbeat saw them (`+Routing`).
    var liveNodes: Set<String> = []
    /// Cluster mode: the lapsed nodes whose takeover this node is trying or doing (`+Takeover`).
    var takeovers: Set<String> = []
    /// Cluster mode: group -> the latest of its reads under way (`+ClusterGroups`).
    var groupReloads: [String: Int] = [:]
    /// Cluster mode: whether the bus went down since it was last subscribed (`+ClusterGroups`).
    var busWasDown = false
    /// Cluster mode: whether the node is asking the database which of its calls survivors took
    /// over while it was cut off (`+Cluster`); its Core timers wait meanwhile.
    var reconciling = false
    /// Cluster mode: uid -> how many of their devices passed `connect`'s checks and wait for
    /// their subscription and the calls of other nodes (`+Tokens`).
    var arrivals: [String: Int] = [:]
    /// Cluster mode: the pushes that came while a device of their user was on its way in.
    var arrivingPushes: ArrivingPushes
    /// Cluster mode: pushes Redis could not be reached for, in order, sent once it is back
    /// (`+Pushes`); at most `maxHeldOutput`, the oldest dropped first.
    var unsentPushes = Deque<(uid: String, push: ClusterPush)>()
    /// Cluster mode: whether the node was suspended since it last checked its calls (`+Cluster`).
    var wasSuspended = false
    /// Cluster mode: whether its Redis state waits to be written again after `reconcile`.
    var registerPending = false
    /// Asks the database again when `reconcile` could not (`+Cluster`).
    lazy var reconcileRetry = context.makeTimer { [unowned self] in
        reconciling = false
        reconcile()
    }
    /// Cluster mode: users with a busy claim on its way to Redis, and how many (`+Busy`).
    var claimsInFlight: [String: Int] = [:]
    /// Renews the busy claims of the users this node's calls engage (`+Busy`).
    lazy var claimRenewal = context.makeTimer { [unowned self] in self.renewClaims() }
    /// Fires when the oldest forwarded op runs out of time.
    lazy var forwardTimer = context.makeTimer { [unowned self] in self.expireForwards() }
    /// Cluster mode: writes what the node keeps in Redis again every hour (`+Cluster`).
    lazy var registration = context.makeTimer { [unowned self] in self.registerAgain() }
    /// Fires when the Core's earliest timer is due.
    lazy var coreTimer = context.makeTimer { [unowned self] in self.fireCoreTimers() }
    /// Fires when the oldest socket still waiting for `connect` runs out of time.
    lazy var authTimer = context.makeTimer { [unowned self] in self.closeUnauthenticated() }
    /// When each connected socket's token expires (monotonic ms); see `closeExpired`.
    var tokenExpiries = TimerQueue<ConnectionID>()
    /// Fires when the earliest token in `tokenExpiries` expires.
    lazy var expiryTimer = context.makeTimer { [unowned self] in self.closeExpired() }
    /// The writer of call log and group changes, and the output waiting for it.
    lazy var pipeline = StorePipeline(writer: CallLogWriter(
        store: store, deadLetterPath: configuration.deadLetterPath, logger: logger, metrics: metrics.store,
        probeInterval: configuration.storeProbeInterval, onOutboxChanged: { [webhooks] in webhooks.wake() }
    ) { [unowned self] sequence, fenced in
        context.post { [unowned self] in self.release(upTo: sequence, fencedOut: fenced) }
    })

    /// A service over `store`, with the groups it holds; `webhooksActive` says whether the store
    /// has an enabled webhook endpoint. Call `resume` before the context starts.
    init(
        configuration: ServerConfiguration, context: LWSContext, tokens: TokenService, groups: [GroupRecord],
        webhooksActive: Bool, logger: Logger, metrics: GatewayMetrics
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.context = context
        self.tokens = tokens
        self.logger = logger
        store = configuration.store
        clock = SystemClock()
        self.groups = JournaledGroupStore(groups)
        if configuration.cluster != nil, let shared = store as? any ClusterStore {
            let reserver = CallIDReserver(store: shared, context: context, logger: logger)
            let reserved = ReservedCallIDs { reserver.reserve() }
            reserver.ids = reserved
            reservedCallIDs = reserved
        } else {
            reservedCallIDs = nil
        }
        core = GatewayCore(
            configuration: configuration.core, clock: clock, groups: self.groups,
            callIDs: reservedCallIDs ?? CountingCallIDs())
        arrivingPushes = ArrivingPushes(maxHeld: configuration.history.maxEntriesPerUser)
        history = InMemoryPushHistory(
            limits: configuration.history, clock: clock, origin: String(UInt64.random(in: 0...UInt64.max), radix: 36))
        router = AdminRouter(
            groups: self.groups, adminKey: configuration.adminKey, tokens: tokens,
            allowsPrivateWebhooks: configuration.webhooks.allowsPrivateNetworks)
        webApp = WebAppRouter(
            servesFiles: configuration.servesWebApp, mintsDevTokens: configuration.mintsDevTokens,
            webhookURL: configuration.webhooks.url)
        admission = AdmissionControl(configuration: configuration)
        self.webhooksActive = webhooksActive
        _ = webhooks
    }

    /// Takes back the calls a previous run left open and writes what that changed (calls whose
    /// ring timeout passed meanwhile are closed) before anyone can read the log; in cluster mode
    /// new calls take their ids from `callIDs`, the first block reserved. Call once, before the
    /// context starts; throws when the store cannot write.
    func resume(openCalls: [CallLogRecord], lastCallID: Int64, callIDs: ClosedRange<Int64>?) throws {
        if let callIDs {
            reservedCallIDs?.add(callIDs)
        }
        let outcome = core.restore(openCalls: openCalls, lastCallID: lastCallID)
        try store.apply(outcome.logChanges.map(StoreWrite.call) + webhookWrites(outcome.webhookEvents))
        webhooks.wake()
        for call in outcome.finishedCalls {
            metrics.callFinished(call.callStatus)
        }
    }

    /// The outbox writes of `events`, each a message with a fresh id stamped now; none while no
    /// endpoint is enabled.
    func webhookWrites(_ events: [WebhookEvent]) -> [StoreWrite] {
        guard webhooksActive, !events.isEmpty else { return [] }
        let now = clock.nowMillis()
        var random = SystemRandomNumberGenerator()
        return events.map { event in
            .webhook(WebhookMessage(id: WebhookMessage.makeID(at: now, using: &random), timestamp: now, event: event))
        }
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

    /// Points the Core timer at `deadline` (the Core's monotonic ms; nil: no timer pending).
    func armCoreTimer(at deadline: Int64?) {
        guard let deadline else {
            coreTimer.cancel()
            return
        }
        coreTimer.schedule(afterMicroseconds: max(0, deadline - clock.monotonicMillis()) * 1000)
    }

    /// Runs the Core's due timers; in cluster mode only while the node is live and sure of its
    /// calls (`+Cluster`): a node cut off from the cluster may have lost them to a survivor.
    private func fireCoreTimers() {
        guard mayRunCalls() else { return }
        send(core.fireDueTimers())
    }
}
