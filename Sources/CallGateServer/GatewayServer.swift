import CallGateCluster
import CallGateCore
import CallGateProtocol
import Dispatch
import LWS
import Logging
import Prometheus

/// A running CallGate gateway: WebSocket protocol v1 at `/ws`, the admin API and health on the same port.
///
/// `start` returns once the port is open; `stop` closes every socket and ends the service thread.
public final class GatewayServer: Sendable {
    private let context: LWSContext
    /// The service on the context's thread; tests drive it without sockets.
    let service: GatewayService

    /// Cluster mode was asked for on a store the nodes cannot share.
    struct ClusterStoreRequired: Error, CustomStringConvertible {
        var description: String { "cluster mode needs a store every node shares: PostgreSQL" }
    }

    /// The port the gateway listens on (the real one when 0 was asked for).
    public var port: Int { context.port }

    private init(context: LWSContext, service: GatewayService) {
        self.context = context
        self.service = service
    }

    /// Loads groups and open calls from the configured store, sets up the `default` webhook
    /// endpoint, resumes those calls, starts delivering webhooks and listening. In cluster mode it
    /// first claims the node id in Redis, takes back only this node's open calls, and returns once
    /// the node joined. Throws when the store cannot be read, the address cannot be bound, the
    /// secret is empty, a public key file or the JWKS URL cannot be read (``TokenKeyError``), or
    /// (cluster mode) the id is held or the node cannot join.
    public static func start(_ configuration: ServerConfiguration, logger: Logger) async throws -> GatewayServer {
        let publicKeys = try await PublicKeyRing.load(configuration.jwtPublicKeys, logger: logger)
        guard publicKeys != nil || configuration.secretVerifiesConnections else {
            throw TokenKeyError("connection tokens need a secret or public keys to be verified with")
        }
        let tokens: TokenService
        do {
            tokens = try await TokenService(
                secret: configuration.jwtSecret, issuer: configuration.jwtIssuer, audience: configuration.jwtAudience,
                publicKeys: publicKeys, secretVerifiesConnections: configuration.secretVerifiesConnections)
        } catch {
            publicKeys?.stop()
            throw error
        }
        var started = false
        defer {
            if !started { tokens.stop() }
        }
        var contextConfiguration = ContextConfiguration(
            listen: ListenAddress(host: configuration.host, port: configuration.port), protocolName: WireEndpoint.subprotocol)
        contextConfiguration.webSocketPath = WireEndpoint.path
        contextConfiguration.maxMessageBytes = configuration.maxMessageBytes
        contextConfiguration.maxMessageFragments = configuration.maxMessageFragments
        contextConfiguration.foreignUpgradeRefusal =
            HTTPResponse.error(400, .badRequest, "only WebSocket upgrades are served").upgradeRefusal
        contextConfiguration.maxQueuedFrames = configuration.maxQueuedFrames
        contextConfiguration.tcpKeepalive = configuration.tcpKeepalive
        contextConfiguration.livenessInterval = configuration.livenessInterval
        contextConfiguration.maxHTTPBodyBytes = AdminRouter.maxBodySize
        contextConfiguration.tls = configuration.tls
        let store = configuration.store
        let webhookConfiguration = configuration.webhooks
        let cluster = configuration.cluster
        if cluster != nil, !(store is any ClusterStore) {
            throw ClusterStoreRequired()
        }
        // The store blocks its caller (a PostgreSQL store on the network): read on a Dispatch
        // thread, never on one of Swift concurrency's few cooperative threads. A cluster node
        // first claims its id (waiting while a crashed run's lease lapses, failing while a live
        // process holds it), then takes back only its own open calls (those of other nodes are
        // theirs, or their survivors'), and reserves its first block of call ids.
        let incarnation = ClusterMembership.newIncarnation()
        let (groups, openCalls, lastCallID, webhookReach, callIDs, nodeNumber) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let number = try cluster.map {
                        try NodeIDClaim.claim(
                            $0.nodeID, incarnation: incarnation, redis: $0.redis, hold: $0.startHold,
                            wait: $0.timing.lease + .seconds(1))
                    }
                    do {
                        let shared = store as? any ClusterStore
                        let openCalls = try cluster.map { cluster in
                            // Under the takeover lock: a survivor taking them over finishes first.
                            try NodeIDClaim.lockTakeBack(
                                cluster.nodeID, redis: cluster.redis, hold: cluster.startHold,
                                wait: NodeTakeover.defaultLease + .seconds(1))
                            defer { NodeIDClaim.unlockTakeBack(cluster.nodeID, redis: cluster.redis) }
                            return try shared?.takeOverOpenCalls(of: cluster.nodeID, by: cluster.nodeID).map(\.record) ?? []
                        } ?? store.openCalls()
                        return (try store.groups(), openCalls, try store.lastCallID(),
                                try webhookConfiguration.applyDefaultEndpoint(
                                    to: store, now: SystemClock().nowMillis(), shared: cluster != nil),
                                try shared.flatMap { cluster == nil ? nil : try $0.reserveCallIDs() }, number)
                    } catch {
                        if let cluster, let number {
                            NodeIDClaim.release(cluster.nodeID, incarnation: incarnation, number: number, redis: cluster.redis)
                        }
                        throw error
                    }
                })
            }
        }
        if let nodeNumber {
            contextConfiguration.connectionIDBase = ClusterMembership.connectionIDBase(of: nodeNumber)
        }
        let context = LWSContext(configuration: contextConfiguration)
        // Before the context starts: readiness and upgrades refuse until the node joined.
        let clusterFabric = cluster.flatMap { cluster in
            nodeNumber.map { number in
                ClusterFabric(
                    node: ClusterNode(
                        nodeID: cluster.nodeID, incarnation: incarnation, number: number, redis: cluster.redis,
                        signature: cluster.signature, context: context, timing: cluster.timing,
                        historyWindow: .milliseconds(configuration.history.windowMillis),
                        historyPerUser: configuration.history.maxEntriesPerUser, logger: logger),
                    maxHeldPushes: configuration.history.maxEntriesPerUser)
            }
        }
        let fabric: any Fabric = clusterFabric ?? LocalFabric(history: InMemoryPushHistory(
            limits: configuration.history, clock: SystemClock(), origin: String(UInt64.random(in: 0...UInt64.max), radix: 36)))
        let callIDSource: any CallIDSource = if let callIDs, let shared = store as? any ClusterStore {
            CallIDReserver.ids(startingWith: callIDs, from: shared, context: context, logger: logger)
        } else {
            CountingCallIDs()
        }
        let service = GatewayService(
            configuration: configuration, context: context, tokens: tokens, groups: groups, fabric: fabric,
            callIDs: callIDSource, webhooks: webhookReach, logger: logger,
            metrics: GatewayMetrics(registry: PrometheusCollectorRegistry()))
        do {
            do {
                try service.restore(openCalls: openCalls, lastCallID: lastCallID)
            } catch {
                // The dispatcher's and the reads' threads started with the service; nothing else did yet.
                service.webhooks.stop()
                service.storeReads.shutdown()
                throw error
            }
            if !openCalls.isEmpty {
                logger.info("resumed open calls", metadata: ["calls": "\(openCalls.count)"])
            }
            do {
                try context.start(webSocketDelegate: service.hub, httpHandler: service)
                context.post { service.armCoreTimer(at: service.core.nextDeadline) }
                if let cluster, let clusterFabric {
                    try await clusterFabric.join(cluster)
                    context.post { clusterFabric.lookForDevicesOfResumedCalls() }
                }
            } catch {
                context.stop()
                service.pipeline.writer.stop()
                service.webhooks.stop()
                service.storeReads.shutdown()
                throw error
            }
        } catch {
            if let cluster, let nodeNumber {
                NodeIDClaim.release(cluster.nodeID, incarnation: incarnation, number: nodeNumber, redis: cluster.redis)
            }
            throw error
        }
        logger.info(
            "listening",
            metadata: [
                "host": "\(configuration.host)", "port": "\(context.port)", "tls": "\(configuration.tls != nil)",
                "trustedProxies": "\(configuration.trustedProxies.networks.joined(separator: ","))",
                "cluster": "\(configuration.cluster.map { "\($0.nodeID) on \($0.redis)" } ?? "off")",
            ])
        started = true
        return GatewayServer(context: context, service: service)
    }

    /// Drains the node (or joins the drain under way, as `POST /v1/admin/drain` begins one):
    /// readiness and new upgrades get 503 at once, then the sockets are closed spread over the
    /// configured `drainWindow`, each with 1012 and a reconnect hint. `drained` is called (on
    /// the service thread) once no socket is left, or 5 s after the window; `stop()` then hands
    /// the calls on. Any thread.
    public func drain(then drained: @escaping @Sendable () -> Void) {
        context.post { [service] in
            service.hub.beginDrain(over: service.configuration.drainWindow, finished: drained)
        }
    }

    /// Stops within the configured `shutdownTimeout`: refuses new connections at once, closes
    /// every socket left with 1012 and the reconnect hint, so clients reconnect elsewhere (or
    /// here once the node is back), and waits up to half the timeout for them to acknowledge,
    /// then gives the store writes still queued the rest. Leaving the cluster first lets a
    /// survivor take the calls at once. Webhook attempts in flight get up to 2 s more to end;
    /// those that do not stay pending and are sent again by the next run.
    /// Returns false when some of those writes could not be made. Call from outside the
    /// service thread.
    @discardableResult
    public func stop() -> Bool {
        let timeout = service.configuration.shutdownTimeout
        let deadline = ContinuousClock.now + timeout
        service.fabric.leave()
        context.stop(closeCode: CloseCode.serviceRestart, closeReason: ReconnectHint.gateway.reason, grace: timeout / 2)
        let written = service.pipeline.writer.stop(timeout: max(.zero, deadline - ContinuousClock.now))
        service.webhooks.stop()
        service.storeReads.shutdown()
        service.tokens.stop()
        return written
    }
}
