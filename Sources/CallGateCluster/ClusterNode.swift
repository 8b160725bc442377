import LWS
import Logging

/// One node's presence in a cluster: its command connection to Redis and its membership
/// (heartbeat, node number, the view of the other nodes). Made and used on the service thread.
public final class ClusterNode {
    /// The command connection (scripts, claims, publishes).
    public let client: RedisClient
    public let membership: ClusterMembership

    /// A node `nodeID` on the Redis at `endpoint`, claimed by `NodeIDClaim` as `incarnation`
    /// with `number`; nothing connects until `start`. May be made before the context starts
    /// (it touches the loop only from `start` on).
    public init(
        nodeID: String, incarnation: String, number: Int64, redis endpoint: RedisEndpoint, context: LWSContext,
        timing: ClusterMembership.Timing, logger: Logger
    ) {
        client = RedisClient(endpoint: endpoint, name: "callgate:\(nodeID)", context: context, logger: logger)
        membership = ClusterMembership(
            nodeID: nodeID, incarnation: incarnation, number: number, client: client, context: context, timing: timing,
            logger: logger)
    }

    /// Connects and starts the heartbeat; the connection closes with the context's shutdown.
    public func start() {
        client.onReady = { [unowned self] in self.membership.heartbeatNow() }
        client.start()
        membership.start()
    }

    /// Whether this node's heartbeat is acknowledged: only then may it act for the cluster.
    public var isLive: Bool {
        membership.state == .live
    }
}
