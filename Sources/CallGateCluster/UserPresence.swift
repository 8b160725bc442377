/// How many devices of each user every node holds, in Redis (`ClusterKeys.presence`: node id ->
/// count): what the owner of a call counts as `onlineDevices` when it rings a user, and where it
/// asks for a user's devices (`lookFor`) before their grace period would end their call.
///
/// Each node writes only its own field, the count as it is now, so a write is idempotent: one
/// that failed is simply written again (`GatewayService+Presence`). A field lives as long as its
/// node's heartbeat lease: a node that died leaves its field behind, and readers count only the
/// nodes they see live. Service thread only.
public final class UserPresence {
    private let nodeID: String
    private let client: RedisClient

    public init(nodeID: String, client: RedisClient) {
        self.nodeID = nodeID
        self.client = client
    }

    /// How long a profile, and a user's presence, is kept after the last write of either.
    public static let profileLifetime: Duration = .seconds(86_400)

    /// Writes that this node holds `devices` devices of `uid` (0: none, the field goes) and,
    /// when given, their `profile` (their `User` as JSON); `done` says whether Redis took it.
    public func write(_ uid: String, devices: Int, profile: [UInt8]? = nil, then done: @escaping (Bool) -> Void) {
        let key = Array(ClusterKeys.presence(of: uid).utf8)
        let lifetime = Array(String(Self.profileLifetime.microseconds / 1000).utf8)
        if let profile {
            client.send([Array("SET".utf8), Array(ClusterKeys.profile(uid).utf8), profile, Array("PX".utf8), lifetime]) { _ in }
        }
        guard devices > 0 else {
            client.send([Array("HDEL".utf8), key, Array(nodeID.utf8)]) { done((try? $0.get()) != nil) }
            return
        }
        client.send([Array("HSET".utf8), key, Array(nodeID.utf8), Array(String(devices).utf8)]) { _ in }
        client.send([Array("PEXPIRE".utf8), key, lifetime]) { done((try? $0.get()) != nil) }
    }

    /// The other nodes that hold a device of `uid`, by their last word (some may be dead).
    public func nodes(holding uid: String, then done: @escaping ([String]) -> Void) {
        client.send([Array("HGETALL".utf8), Array(ClusterKeys.presence(of: uid).utf8)]) { [nodeID] result in
            let counts = (try? result.get()).map(Self.counts(in:)) ?? [:]
            done(counts.keys.filter { $0 != nodeID }.sorted())
        }
    }

    /// Node -> devices held, from an `HGETALL` of a presence key; fields that are no positive
    /// count are left out.
    public static func counts(in reply: RedisReply) -> [String: Int] {
        guard let flat = reply.elements, flat.count % 2 == 0 else { return [:] }
        var counts: [String: Int] = [:]
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard let node = flat[index].text, let count = flat[index + 1].integer, count > 0 else {
                continue
            }
            counts[node] = Int(count)
        }
        return counts
    }
}
