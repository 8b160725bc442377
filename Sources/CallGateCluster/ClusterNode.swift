import LWS
import Logging

/// One node's presence in a cluster: its command connection to Redis, its membership
/// (heartbeat, node number, the view of the other nodes), its bus (pub/sub with the other
/// nodes) and the records of which node owns which call. Made and used on the service thread.
public final class ClusterNode {
    /// The command connection (scripts, claims, publishes).
    public let client: RedisClient
    public let membership: ClusterMembership
    public let bus: ClusterBus
    public let owners: CallOwners
    public let busy: BusyClaims
    public let activeCalls: ActiveCallIndex
    public let presence: UserPresence
    public let starts: CallStarts
    public let takeover: NodeTakeover
    public let pushes: PushStream
    /// Called each time the command connection is ready (again), after the heartbeat went out:
    /// what this node keeps in Redis (call owners, busy claims) may have been lost with it.
    public var onReady: () -> Void = {}

    /// A node `nodeID` on the Redis at `endpoint`, claimed by `NodeIDClaim` as `incarnation`
    /// with `number`, sealing its bus messages with `signature`, keeping each user's pushes for
    /// `historyWindow`, at most `historyPerUser` of them; nothing connects until `start`. May be
    /// made before the context starts (it touches the loop only from `start` on).
    public init(
        nodeID: String, incarnation: String, number: Int64, redis endpoint: RedisEndpoint, signature: BusSignature,
        context: LWSContext, timing: ClusterMembership.Timing, historyWindow: Duration, historyPerUser: Int, logger: Logger
    ) {
        client = RedisClient(endpoint: endpoint, name: "callgate:\(nodeID)", context: context, logger: logger)
        membership = ClusterMembership(
            nodeID: nodeID, incarnation: incarnation, number: number, client: client, context: context, timing: timing,
            logger: logger)
        bus = ClusterBus(
            nodeID: nodeID, client: client, endpoint: endpoint, signature: signature, context: context, logger: logger)
        owners = CallOwners(nodeID: nodeID, client: client)
        busy = BusyClaims(nodeID: nodeID, client: client, logger: logger)
        activeCalls = ActiveCallIndex(nodeID: nodeID, client: client)
        presence = UserPresence(nodeID: nodeID, incarnation: incarnation, client: client)
        starts = CallStarts(client: client)
        takeover = NodeTakeover(nodeID: nodeID, client: client)
        pushes = PushStream(
            client: client, signature: signature, window: historyWindow, maxEntriesPerUser: historyPerUser)
    }

    /// This node's id.
    public var nodeID: String {
        membership.nodeID
    }

    /// Connects and starts the heartbeat; the connection closes with the context's shutdown.
    public func start() {
        client.onReady = { [unowned self] in
            self.membership.heartbeatNow()
            self.onReady()
        }
        client.start()
        membership.start()
        bus.start()
    }

    /// Whether this node's heartbeat is acknowledged and its channel subscribed: only then may
    /// it act for the cluster.
    public var isLive: Bool {
        membership.state == .live && bus.isReady
    }
}
