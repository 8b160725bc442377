/// How many devices of each user every node holds, in Redis (`ClusterKeys.presence`: a hash of
/// `"<node>|<incarnation>"` -> count): what the owner of a call counts as `onlineDevices` when it
/// rings a user, and where it asks for a user's devices (`lookFor`) before their grace period
/// ends their call.
///
/// Each run of a node writes only its own field, the count as it is now, so a write is
/// idempotent: one that failed is simply written again (`GatewayService+Presence`); each write
/// also drops the fields of the node's earlier runs. A field counts only while its run is live:
/// readers match it against the runs the heartbeat reports (`ClusterMembership.liveRuns`), so a
/// node that died, or restarted, leaves nothing that counts. Service thread only.
public final class UserPresence {
    /// One node's word on a user's devices.
    public struct Entry: Equatable, Sendable {
        /// The node.
        public let node: String
        /// The run of the node that wrote it.
        public let incarnation: String
        /// How many devices it holds.
        public let count: Int
    }

    private let nodeID: String
    private let client: RedisClient
    /// This run's field: `"<node>|<incarnation>"`.
    private let field: [UInt8]

    public init(nodeID: String, incarnation: String, client: RedisClient) {
        self.nodeID = nodeID
        self.client = client
        field = Self.field(of: nodeID, run: incarnation)
    }

    /// The field of node `node`'s run `run`.
    private static func field(of node: String, run: String) -> [UInt8] {
        Array("\(node)|\(run)".utf8)
    }

    /// How long a profile, and a user's presence, is kept after the last write of either.
    public static let profileLifetime: Duration = .seconds(86_400)

    /// Writes that this node holds `devices` devices of `uid` (0: none) and, when given, their
    /// `profile` (their `User` as JSON); `done` says whether Redis took the count.
    public func write(_ uid: String, devices: Int, profile: [UInt8]? = nil, then done: @escaping (Bool) -> Void) {
        let lifetime = Array(String(Self.profileLifetime.microseconds / 1000).utf8)
        if let profile {
            client.send([Array("SET".utf8), Array(ClusterKeys.profile(uid).utf8), profile, Array("PX".utf8), lifetime]) { _ in }
        }
        client.run(
            ClusterScripts.writePresence, keys: [ClusterKeys.presence(of: uid)],
            arguments: [Array(nodeID.utf8), field, Array(String(devices).utf8), lifetime]
        ) { result in
            done((try? result.get().integer) == 1)
        }
    }

    /// Claims a slot for one more device of `uid` on this node: writes that it holds `devices`
    /// of theirs (the new one included) unless, with what the other nodes' runs in `liveRuns`
    /// (node -> incarnation, as `ClusterMembership.liveRuns`) hold, that passes `limit`; `done`
    /// gets whether it did, or why Redis could not be asked.
    public func claim(
        _ uid: String, devices: Int, limit: Int, counting liveRuns: [String: String],
        then done: @escaping (Result<Bool, RedisFailure>) -> Void
    ) {
        let lifetime = Array(String(Self.profileLifetime.microseconds / 1000).utf8)
        let others = liveRuns.filter { $0.key != nodeID }.map { Self.field(of: $0.key, run: $0.value) }
        client.run(
            ClusterScripts.claimDevice, keys: [ClusterKeys.presence(of: uid)],
            arguments: [field, Array(String(devices).utf8), Array(String(limit).utf8), lifetime] + others
        ) { result in
            done(result.flatMap { reply in
                guard let status = reply.elements?.first?.integer else {
                    return .failure(.refused("claim-device answered \(reply)"))
                }
                return .success(status == 1)
            })
        }
    }

    /// The other nodes that hold a device of `uid`, by their last word (some may be dead).
    public func nodes(holding uid: String, then done: @escaping ([String]) -> Void) {
        client.send([Array("HGETALL".utf8), Array(ClusterKeys.presence(of: uid).utf8)]) { [nodeID] result in
            let entries = (try? result.get()).map(Self.entries(in:)) ?? []
            done(Array(Set(entries.map(\.node))).filter { $0 != nodeID }.sorted())
        }
    }

    /// The entries in an `HGETALL` of a presence key; fields that are no `"<node>|<run>"`, or
    /// whose value is no positive count, are left out.
    public static func entries(in reply: RedisReply) -> [Entry] {
        guard let flat = reply.elements, flat.count % 2 == 0 else { return [] }
        var entries: [Entry] = []
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard let field = flat[index].text, let bar = field.firstIndex(of: "|"),
                  let count = flat[index + 1].integer, count > 0 else { continue }
            entries.append(Entry(
                node: String(field[..<bar]), incarnation: String(field[field.index(after: bar)...]),
                count: Int(min(count, Int64(Int32.max)))))
        }
        return entries
    }
}
