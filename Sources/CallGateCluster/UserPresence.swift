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

    /// How long a profile, and the set of a user's nodes, is kept after the last device of the
    /// user connected somewhere.
    public static let profileLifetime: Duration = .seconds(86_400)

    /// The first device of `uid` on this node connected, described by `profile` (their `User`
    /// as JSON).
    public func arrived(_ uid: String, profile: [UInt8]) {
        let key = Array(ClusterKeys.presence(of: uid).utf8)
        let lifetime = Array(String(Self.profileLifetime.microseconds / 1000).utf8)
        client.send([Array("SADD".utf8), key, Array(nodeID.utf8)]) { _ in }
        client.send([Array("PEXPIRE".utf8), key, lifetime]) { _ in }
        client.send([
            Array("SET".utf8), Array(ClusterKeys.profile(uid).utf8), profile, Array("PX".utf8),
            Array(String(Self.profileLifetime.microseconds / 1000).utf8),
        ]) { _ in }
    }

    /// The last device of `uid` on this node left.
    public func left(_ uid: String) {
        client.send([Array("SREM".utf8), Array(ClusterKeys.presence(of: uid).utf8), Array(nodeID.utf8)]) { _ in }
    }

    /// The other nodes that hold a device of `uid`, by their last word (some may be dead).
    public func nodes(holding uid: String, then done: @escaping ([String]) -> Void) {
        client.send([Array("SMEMBERS".utf8), Array(ClusterKeys.presence(of: uid).utf8)]) { [nodeID] result in
            let nodes = (try? result.get().elements)?.compactMap(\.text) ?? []
            done(nodes.filter { $0 != nodeID })
        }
    }
}
