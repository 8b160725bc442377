/// The Redis keys and channels of a cluster. Every membership key carries the hash tag
/// `{cluster}`, so that on a Redis Cluster they share a slot and one script may touch them all.
public enum ClusterKeys {
    /// The set of node ids that joined and were not yet taken over.
    public static let nodes = "cg:{cluster}:nodes"
    /// Hands out node numbers (`INCR`).
    public static let nodeNumbers = "cg:{cluster}:nodenum"
    /// The prefix of each node's heartbeat key: `"<incarnation>|<number>"` with a lease.
    public static let nodePrefix = "cg:{cluster}:node:"

    /// The heartbeat key of `node`.
    public static func node(_ node: String) -> String {
        nodePrefix + node
    }
}
