/// Which calls ring or engage each user, by node, in Redis (`ClusterKeys.activeCalls`): a
/// device that connects to any node is told of the calls of every node in `activeCalls`.
///
/// The owner writes a user's entry (its calls that concern them, as JSON) after every op that
/// changed them, over the one command connection, so an entry is never older than the pushes
/// already published about it; a device reads the entries of every node once its own
/// subscription is confirmed, so every later change reaches it as a push. A user's hash lives
/// `lifetime` after its last write; readers keep the entries of live nodes only (a node that
/// died may leave some).
/// Service thread only.
public final class ActiveCallIndex {
    /// How long an entry lives after it was written.
    public let lifetime: Duration
    private let nodeID: String
    private let client: RedisClient

    public init(nodeID: String, client: RedisClient, lifetime: Duration = .seconds(86_400)) {
        self.nodeID = nodeID
        self.client = client
        self.lifetime = lifetime
    }

    /// The users whose entry a write may have missed (the link was down, or dropped before
    /// Redis answered): their entry may list calls that since ended, until written again.
    private var unwritten: Set<String> = []

    /// Writes this node's calls that concern `uid` (a JSON array), or deletes its entry when
    /// there are none (`nil`). A write that fails leaves `uid` in `takeUnwritten()`.
    public func write(_ uid: String, calls: [UInt8]?) {
        let key = Array(ClusterKeys.activeCalls(of: uid).utf8)
        let failed: (Result<RedisReply, RedisFailure>) -> Void = { [weak self] result in
            if case .failure = result {
                self?.unwritten.insert(uid)
            }
        }
        if let calls {
            client.send([Array("HSET".utf8), key, Array(nodeID.utf8), calls], then: failed)
            client.send([Array("PEXPIRE".utf8), key, Array(String(lifetime.microseconds / 1000).utf8)], then: failed)
        } else {
            client.send([Array("HDEL".utf8), key, Array(nodeID.utf8)], then: failed)
        }
    }

    /// The users whose last write failed since the last call, for the owner to write their
    /// entries again as its Core has them now, once the link is back.
    public func takeUnwritten() -> [String] {
        defer { unwritten.removeAll() }
        return Array(unwritten)
    }

    /// Deletes the entries of `uids` that node `node` wrote: its calls are this node's now.
    public func forget(_ uids: [String], of node: String) {
        for uid in uids {
            client.send([Array("HDEL".utf8), Array(ClusterKeys.activeCalls(of: uid).utf8), Array(node.utf8)]) { _ in }
        }
    }

    /// The entries of `uid` of the other nodes (JSON arrays), by node.
    public func read(
        _ uid: String, then done: @escaping (Result<[(node: String, calls: [UInt8])], RedisFailure>) -> Void
    ) {
        client.send([Array("HGETALL".utf8), Array(ClusterKeys.activeCalls(of: uid).utf8)]) { [nodeID] result in
            done(result.flatMap { reply in
                guard let values = reply.elements, values.count.isMultiple(of: 2) else {
                    return .failure(.refused("HGETALL answered \(reply)"))
                }
                return .success(stride(from: 0, to: values.count, by: 2).compactMap { index in
                    guard let node = values[index].text, node != nodeID, case .bulk(let calls) = values[index + 1] else {
                        return nil
                    }
                    return (node, calls)
                })
            })
        }
    }
}
