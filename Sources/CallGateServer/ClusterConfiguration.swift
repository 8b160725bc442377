import CallGateCluster

/// Cluster mode: this node's id, the Redis that the nodes share (with PostgreSQL as the store)
/// and the secret that seals their messages.
public struct ClusterConfiguration: Sendable {
    /// Node ids are 1 to 64 letters, digits, `.`, `_`, `:` or `-` (they go into Redis keys and logs).
    public static let nodeIDPattern = "1 to 64 of A-Z a-z 0-9 . _ : -"

    public var redis: RedisEndpoint
    /// This node's id, unique in the cluster.
    public var nodeID: String
    /// Seals and checks the messages between nodes (`--cluster-secret`).
    public var signature: BusSignature
    /// The heartbeat's timing.
    public var timing = ClusterMembership.Timing()
    /// How long `GatewayServer.start` waits for Redis to acknowledge this node before it fails.
    public var joinTimeout: Duration = .seconds(10)
    /// How long the lease claimed at start lasts before the first heartbeat renews it: it covers
    /// taking back the open calls and the first reads, so that no twin can claim the id meanwhile.
    public var startHold: Duration = .seconds(10)
    /// How long an op forwarded to the node that owns its call waits for the answer before the
    /// device gets `ERR_CALL_OWNER_UNREACHABLE` (`--cluster-forward-timeout`).
    public var forwardTimeout: Duration = .seconds(2)

    public init(redis: RedisEndpoint, nodeID: String, signature: BusSignature) {
        self.redis = redis
        self.nodeID = nodeID
        self.signature = signature
    }

    /// Whether `id` is a usable node id.
    public static func isValidNodeID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                 UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
