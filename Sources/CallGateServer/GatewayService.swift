import CallGateCore
import CallGateProtocol
import Foundation
import LWS
import Logging

/// The gateway on its service thread: takes what the sockets ask (through the hub,
/// `ConnectionHub`) and HTTP requests from libwebsockets, runs them through the Core, and
/// carries out each `Outcome`: the store writes what changed, and the reply and pushes go to the
/// sockets once the writes they depend on are durable (`OutcomePath`).
///
/// Threads (docs/architecture.md): all state here is confined to the service thread of
/// `context`, checked by `context.assertOnServiceThread()` at every entry. Other work runs
/// elsewhere and comes back through `context.post`: token checks and signing on Swift
/// concurrency's pool (`offServiceThread`), call log reads on `storeReads`, and commits on the
/// writer's thread (`StorePipeline`). Hence `@unchecked Sendable`.
///
/// The extensions: `+WebSocket` (request dispatch by op and handshake phase), `+Tokens`
/// (connect, refresh, call tokens), `+Recovery` (the connect reply and the replay of what the
/// device missed), `+Outcomes` (persisting an outcome, then the outcome path) and `+HTTP` (call
/// log API, admin, monitoring). What differs in a cluster is the fabric's (`Fabric`).
final class GatewayService: @unchecked Sendable {
    let configuration: ServerConfiguration
    let context: LWSContext
    let core: GatewayCore
    let tokens: TokenService
    let groups: JournaledGroupStore
    /// The web softphone demo (when turned on) and the admin API.
    let routes: HTTPRoutes
    let logger: Logger
    /// This server's metrics, served at `GET /metrics`.
    let metrics: GatewayMetrics
    /// Runs the store reads that block (call log API, missed calls, admin), off the service thread.
    let storeReads = StoreReads()
    /// The missed-call counts read for devices on their way in (`readMissedCalls`).
    lazy var missedCallReads = MissedCallReads(timer: context.makeTimer { [unowned self] in self.missedCallReadsTimedOut() })
    /// Posts the webhook outbox's deliveries, on its own thread; started by `init`.
    lazy var webhooks = WebhookDispatcher(
        outbox: store, configuration: configuration.webhooks, node: configuration.cluster?.nodeID ?? "local",
        clustered: configuration.cluster != nil, clock: clock, metrics: metrics.webhooks, logger: logger
    ) { [unowned self] reach in
        context.post { [unowned self] in reach.apply(to: core) }
    }
    /// The open sockets, their handshake, limits and deadlines; libwebsockets' delegate.
    let hub: ConnectionHub
    /// What differs between one process and a cluster: routing, publishing, presence, claims.
    let fabric: any Fabric
    /// Fires when the Core's earliest timer is due.
    lazy var coreTimer = context.makeTimer { [unowned self] in self.fireCoreTimers() }
    /// The path from an outcome to the sockets: the writer of call log and group changes, and
    /// the replies and pushes held until what they reveal is durable.
    lazy var output: OutcomePath = {
        let pipeline = StorePipeline(writer: CallLogWriter(
            store: store, deadLetterPath: configuration.deadLetterPath, logger: logger, metrics: metrics.store,
            probeInterval: configuration.storeProbeInterval, onOutboxChanged: { [webhooks] in webhooks.wake() }
        ) { [unowned self] sequence, fenced, missedCalls in
            context.post { [unowned self] in
                self.release(upTo: sequence, fencedOut: fenced)
                if !missedCalls.isEmpty {
                    self.missedCallsChanged(missedCalls)
                }
            }
        })
        let output = OutcomePath(
            pipeline: pipeline, sockets: hub, metrics: metrics, maxQueuedFrames: configuration.maxQueuedFrames,
            fencesAnswers: configuration.cluster != nil, assertServiceThread: { [context] in context.assertOnServiceThread() })
        output.delegate = self
        return output
    }()

    /// Where call logs and groups are kept; read off the service thread, written by the pipeline.
    var store: any CallLogStore { configuration.store }
    /// The writer and the gate of output waiting for it.
    var pipeline: StorePipeline { output.pipeline }
    /// The Core's clock: wall time for what clients see, monotonic time for deadlines.
    var clock: any CoreClock { core.clock }

    /// A service over `store`, with the groups it holds, on `fabric` (a `LocalFabric`, or a
    /// `ClusterFabric` for a cluster node), whose new calls take their log ids from `callIDs`;
    /// `webhooks` is what the store's enabled webhook endpoints make of events. Call `restore`
    /// before the context starts.
    init(
        configuration: ServerConfiguration, context: LWSContext, tokens: TokenService, groups: [GroupRecord],
        fabric: any Fabric, callIDs: any CallIDSource, webhooks reach: WebhookReach, logger: Logger, metrics: GatewayMetrics
    ) {
        self.fabric = fabric
        self.configuration = configuration
        self.metrics = metrics
        self.context = context
        self.tokens = tokens
        self.logger = logger
        let clock = SystemClock()
        self.groups = JournaledGroupStore(groups)
        core = GatewayCore(configuration: configuration.core, clock: clock, groups: self.groups, callIDs: callIDs)
        routes = HTTPRoutes(
            webApp: WebAppRouter(
                servesFiles: configuration.servesWebApp, mintsDevTokens: configuration.mintsDevTokens,
                webhookURL: configuration.webhooks.url),
            admin: AdminRouter(
                groups: self.groups, adminKey: configuration.adminKey, tokens: tokens,
                allowsPrivateWebhooks: configuration.webhooks.allowsPrivateNetworks))
        hub = ConnectionHub(
            configuration: configuration, clock: clock, metrics: metrics, logger: logger,
            assertServiceThread: { context.assertOnServiceThread() }
        ) { fire in
            context.makeTimer(fire)
        }
        reach.apply(to: core)
        hub.delegate = self
        _ = webhooks
        fabric.attach(to: self)
    }

    /// Takes back the calls a previous run left open and writes what that changed (calls whose
    /// ring timeout passed meanwhile are closed) before anyone can read the log. Call once,
    /// before the context starts; throws when the store cannot write.
    func restore(openCalls: [CallLogRecord], lastCallID: Int64) throws {
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
        guard core.reportsWebhookEvents, !events.isEmpty else { return [] }
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

    /// Runs the Core's due timers, while the fabric says this node may run its calls (a cluster
    /// node cut off from the cluster may have lost them to a survivor).
    private func fireCoreTimers() {
        guard fabric.mayRunCalls() else { return }
        send(core.fireDueTimers())
    }
}
