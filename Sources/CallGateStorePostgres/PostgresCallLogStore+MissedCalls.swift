import CallGateCore
import CallGateProtocol
import PostgresNIO

/// Missed calls (`MissedCallStore`) in `missed_calls` and `missed_call_counts` (migrations 5, 7),
/// shared by every node; `apply` notes them as it saves calls (`NoteMissedCalls`). Any thread
/// that may block, as every method of this store.
extension PostgresCallLogStore {
    public func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls] {
        var counts: [String: MissedCalls] = [:]
        for uid in uids {
            counts[uid] = MissedCalls(unseen: 0, revision: 0)
        }
        guard !counts.isEmpty else { return counts }
        let asked = Array(counts.keys)
        let found = try blocking { [self] in
            try await reading("reading users' missed calls") { [self] connection in
                var found: [(String, MissedCalls)] = []
                for try await (uid, unseen, revision) in try await connection.query(
                    "SELECT uid, unseen, revision FROM missed_call_counts WHERE uid = ANY(\(asked))", logger: logger
                ).decode((String, Int, Int64).self) {
                    found.append((uid, MissedCalls(unseen: unseen, revision: revision)))
                }
                return found
            }
        }
        for (uid, count) in found {
            counts[uid] = count
        }
        return counts
    }

    /// Marks the calls seen a transaction at a time (`SeenWalk`): each locks the user's count
    /// row (ordering it against a node noting a new missed call), walks the user's calls
    /// (`call_members`) from where their unseen missed calls start, marks those rows seen and
    /// writes the count back.
    public func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        try blocking { [self] in
            var limit = Int64.max
            if let sessionId {
                let last = try await reading("finding the call to mark missed calls seen through") { [self] connection in
                    var last: Int64?
                    for try await id in try await connection.query("""
                        SELECT max(c.id) FROM calls AS c JOIN call_members AS m ON m.call_id = c.id AND m.uid = \(uid)
                        WHERE c.session_id = \(sessionId)
                        """, logger: logger).decode(Int64?.self) {
                        last = id
                    }
                    return last
                }
                guard let last else { return nil }
                limit = last
            }
            var walk = SeenWalk(limit: limit)
            while !walk.isDone {
                walk = try await transaction("marking missed calls seen") { [self, walk] connection in
                    var walk = walk
                    try await step(&walk, of: uid, at: at, on: connection)
                    return walk
                }
            }
            return walk.mark
        }
    }

    /// One step of `walk`, in `connection`'s transaction.
    private func step(_ walk: inout SeenWalk, of uid: String, at: Int64, on connection: PostgresConnection) async throws {
        var count = MissedCalls(unseen: 0, revision: 0)
        var unseenFrom: Int64?
        for try await (unseen, revision, from) in try await connection.query(
            "SELECT unseen, revision, unseen_from FROM missed_call_counts WHERE uid = \(uid) FOR UPDATE", logger: logger
        ).decode((Int, Int64, Int64?).self) {
            count = MissedCalls(unseen: unseen, revision: revision)
            unseenFrom = from
        }
        guard let from = walk.begin(count: count, unseenFrom: unseenFrom) else { return }
        var walked = 0, last: Int64?, marked = 0
        for try await row in try await connection.query("""
            WITH walked AS (
                SELECT call_id FROM call_members WHERE uid = \(uid) AND call_id BETWEEN \(from) AND \(walk.limit)
                ORDER BY call_id LIMIT \(SeenWalk.callsPerTransaction)),
            marked AS (
                UPDATE missed_calls SET seen_at = callgate_time(\(at))
                WHERE call_id IN (SELECT call_id FROM walked) AND uid = \(uid) AND seen_at IS NULL RETURNING 1)
            SELECT (SELECT count(*) FROM walked), (SELECT max(call_id) FROM walked), (SELECT count(*) FROM marked)
            """, logger: logger).decode((Int, Int64?, Int).self) {
            (walked, last, marked) = row
        }
        let after = walk.end(from: from, walked: walked, last: last, marked: marked, count: count, unseenFrom: unseenFrom)
        guard after.count != count || after.unseenFrom != unseenFrom else { return }
        try await connection.query("""
            UPDATE missed_call_counts SET unseen = \(after.count.unseen), revision = \(after.count.revision),
                unseen_from = \(after.unseenFrom) WHERE uid = \(uid)
            """, logger: logger)
    }

    public func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try blocking { [self] in
            try await reading("reading which missed calls are unseen") { [self] connection in
                var unseen: Set<Int64> = []
                for try await id in try await connection.query("""
                    SELECT call_id FROM missed_calls WHERE call_id = ANY (\(ids)::bigint[]) AND uid = \(uid) AND seen_at IS NULL
                    """, logger: logger).decode(Int64.self) {
                    unseen.insert(id)
                }
                return unseen
            }
        }
    }
}
