/// Which nodes hold a device of each user, in Redis (`ClusterKeys.presence`): the owner of a
/// call that lost the last device of a user it knew of asks the other nodes holding one to
/// announce theirs, before that user's grace period ends their call. Service thread only.
public final class UserPresence {
    private let nodeID: String
    private let client: RedisClient

    public init(nodeID: String, client: RedisClient) {
        self.nodeID = nodeID
        self.client = client
    }

    /// The first device of `uid` on this node connected (`true`) or its last one left.
    public func mark(_ uid: String, present: Bool) {
        client.send([Array((present ? "SADD" : "SREM").utf8), Array(ClusterKeys.presence(of: uid).utf8), Array(nodeID.utf8)]) { _ in }
    }

    /// The other nodes that hold a device of `uid`, by their last word (some may be dead).
    public func nodes(holding uid: String, then done: @escaping ([String]) -> Void) {
        client.send([Array("SMEMBERS".utf8), Array(ClusterKeys.presence(of: uid).utf8)]) { [nodeID] result in
            let nodes = (try? result.get().elements)?.compactMap(\.text) ?? []
            done(nodes.filter { $0 != nodeID })
        }
    }
}
