/// Who takes over the calls of a node that lapsed (killed, or left on SIGTERM): the first
/// survivor to claim it (`SET NX` of `ClusterKeys.takeover`, a lease of `lease`), so that the
/// survivors do not all read the database for it at once. The database decides for each call
/// (one transaction per takeover, the epoch raised); a survivor that dies while taking over
/// lets its claim lapse, and another one takes over what is left. Service thread only.
public final class NodeTakeover {
    /// How long a claim to take a node over lives.
    public let lease: Duration
    private let nodeID: String
    private let client: RedisClient

    public init(nodeID: String, client: RedisClient, lease: Duration = .seconds(30)) {
        self.nodeID = nodeID
        self.client = client
        self.lease = lease
    }

    /// Claims the takeover of `node`; `done` says whether this node won it.
    public func claim(_ node: String, then done: @escaping (Bool) -> Void) {
        client.send([
            Array("SET".utf8), Array(ClusterKeys.takeover(of: node).utf8), Array(nodeID.utf8), Array("NX".utf8),
            Array("PX".utf8), Array(String(lease.microseconds / 1000).utf8),
        ]) { result in
            if case .success(.status("OK")) = result {
                done(true)
            } else {
                done(false)
            }
        }
    }

    /// Gives up a takeover that could not be done (the database could not be reached): another
    /// survivor, or this one, tries again at a later heartbeat.
    public func abandon(_ node: String) {
        client.send([Array("DEL".utf8), Array(ClusterKeys.takeover(of: node).utf8)]) { _ in }
    }

    /// Ends the takeover of `node`, whose calls are this node's now: it leaves the node set
    /// (unless it is back) and its claim is freed.
    public func finish(_ node: String) {
        client.run(
            ClusterScripts.forget, keys: [ClusterKeys.node(node), ClusterKeys.nodes, ClusterKeys.takeover(of: node)],
            arguments: [Array(node.utf8)]
        ) { _ in }
    }
}
