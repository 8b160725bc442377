import CallGateCore
import CallGateProtocol
import PostgresNIO

/// Missed calls (`MissedCallStore`) in `missed_calls` and `missed_call_counts` (migration 5),
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

    /// Marks the calls seen in one transaction: the unseen ones up to the limit, then the count,
    /// lowered by as many, with its revision raised (the count's row lock orders this against
    /// a node noting a new missed call); nothing changes when none was unseen.
    public func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        try blocking { [self] in
            try await transaction("marking missed calls seen") { [self] connection in
                var limit = Int64.max
                if let sessionId {
                    var last: Int64?
                    for try await id in try await connection.query("""
                        SELECT max(c.id) FROM calls AS c JOIN call_members AS m ON m.call_id = c.id AND m.uid = \(uid)
                        WHERE c.session_id = \(sessionId)
                        """, logger: logger).decode(Int64?.self) {
                        last = id
                    }
                    guard let last else { return nil }
                    limit = last
                }
                var marked = 0
                for try await rows in try await connection.query("""
                    WITH marked AS (
                        UPDATE missed_calls SET seen_at = callgate_time(\(at))
                        WHERE uid = \(uid) AND seen_at IS NULL AND call_id <= \(limit) RETURNING 1),
                    counted AS (
                        UPDATE missed_call_counts SET unseen = greatest(0, unseen - (SELECT count(*) FROM marked)),
                            revision = revision + 1
                        WHERE uid = \(uid) AND EXISTS (SELECT 1 FROM marked))
                    SELECT count(*) FROM marked
                    """, logger: logger).decode(Int.self) {
                    marked = rows
                }
                return SeenMark(count: try await count(of: uid, on: connection), marked: marked)
            }
        }
    }

    public func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try blocking { [self] in
            try await reading("reading which missed calls are unseen") { [self] connection in
                var unseen: Set<Int64> = []
                for try await id in try await connection.query("""
                    SELECT call_id FROM missed_calls WHERE uid = \(uid) AND seen_at IS NULL AND call_id = ANY (\(ids)::bigint[])
                    """, logger: logger).decode(Int64.self) {
                    unseen.insert(id)
                }
                return unseen
            }
        }
    }

    /// `uid`'s count as `connection` sees it.
    private func count(of uid: String, on connection: PostgresConnection) async throws -> MissedCalls {
        var found = MissedCalls(unseen: 0, revision: 0)
        for try await (unseen, revision) in try await connection.query(
            "SELECT unseen, revision FROM missed_call_counts WHERE uid = \(uid)", logger: logger
        ).decode((Int, Int64).self) {
            found = MissedCalls(unseen: unseen, revision: revision)
        }
        return found
    }
}
