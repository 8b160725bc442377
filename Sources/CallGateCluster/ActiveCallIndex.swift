/// Which calls ring or engage each user, per node, in Redis (`ClusterKeys.activeCalls`): a
/// device that connects to any node is told of the calls of every node in `activeCalls`.
///
/// The owner writes a user's entry (its calls that concern them, as JSON) after every op that
/// changed them, over the one command connection, so an entry is never older than the pushes
/// already published about it; a device reads the entries of the live nodes once its own
/// subscription is confirmed, so every later change reaches it as a push. Entries live
/// `lifetime` (a node that died leaves entries that its live peers do not read).
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

    /// Writes this node's calls that concern `uid` (a JSON array), or deletes its entry when
    /// there are none (`nil`).
    public func write(_ uid: String, calls: [UInt8]?) {
        let key = Array(ClusterKeys.activeCalls(of: uid, on: nodeID).utf8)
        if let calls {
            client.send([Array("SET".utf8), key, calls, Array("PX".utf8), Array(String(lifetime.microseconds / 1000).utf8)]) { _ in }
        } else {
            client.send([Array("DEL".utf8), key]) { _ in }
        }
    }

    /// The entries of `uid` on `nodes` (JSON arrays; nodes without one are left out).
    public func read(_ uid: String, on nodes: [String], then done: @escaping (Result<[[UInt8]], RedisFailure>) -> Void) {
        guard !nodes.isEmpty else {
            done(.success([]))
            return
        }
        client.send([Array("MGET".utf8)] + nodes.map { Array(ClusterKeys.activeCalls(of: uid, on: $0).utf8) }) { result in
            done(result.flatMap { reply in
                guard let values = reply.elements else { return .failure(.refused("MGET answered \(reply)")) }
                return .success(values.compactMap { value in
                    if case .bulk(let bytes) = value { bytes } else { nil }
                })
            })
        }
    }
}
