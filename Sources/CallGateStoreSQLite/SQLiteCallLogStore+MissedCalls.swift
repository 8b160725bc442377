import CallGateCore
import CallGateProtocol
import GRDB

/// Missed calls (`MissedCallStore`) in `missed_calls` and `missed_call_counts` (schema v5); the
/// writer notes them as it saves calls (`StoreTransaction.noteMissed`). Any thread.
extension SQLiteCallLogStore {
    public func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls] {
        var counts: [String: MissedCalls] = [:]
        for uid in uids {
            counts[uid] = MissedCalls(unseen: 0, revision: 0)
        }
        guard !counts.isEmpty else { return counts }
        let asked = StoreTransaction.json(Array(counts.keys))
        let rows = try read("reading users' missed calls") { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT uid, unseen, revision FROM missed_call_counts WHERE uid IN (SELECT value FROM json_each(?))
                """), arguments: [asked])
        }
        for row in rows {
            counts[row[0]] = MissedCalls(unseen: row[1], revision: row[2])
        }
        return counts
    }

    /// Marks the calls seen in one write transaction: the unseen ones up to the limit (the user's
    /// rows by primary key), then the count, lowered by as many, with its
    /// revision raised; nothing changes when none was unseen.
    public func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        try write("marking missed calls seen") { db in
            var limit = Int64.max
            if let sessionId {
                guard let last = try Int64.fetchOne(db.cachedStatement(sql: """
                    SELECT max(c.id) FROM calls AS c JOIN call_members AS m ON m.call_id = c.id AND m.uid = ?
                    WHERE c.session_id = ?
                    """), arguments: [uid, sessionId])
                else { return nil }
                limit = last
            }
            try db.cachedStatement(sql: """
                UPDATE missed_calls SET seen_at = ? WHERE uid = ? AND seen_at IS NULL AND call_id <= ?
                """).execute(arguments: [at, uid, limit])
            let marked = db.changesCount
            if marked > 0 {
                try db.cachedStatement(sql: """
                    UPDATE missed_call_counts SET unseen = max(0, unseen - ?), revision = revision + 1 WHERE uid = ?
                    """).execute(arguments: [marked, uid])
            }
            return SeenMark(count: try Self.count(of: uid, in: db), marked: marked)
        }
    }

    public func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try read("reading which missed calls are unseen") { db in
            let encoded = "[" + ids.map(String.init).joined(separator: ",") + "]"
            return Set(try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT call_id FROM missed_calls
                WHERE uid = ? AND seen_at IS NULL AND call_id IN (SELECT value FROM json_each(?))
                """), arguments: [uid, encoded]))
        }
    }

    /// `uid`'s count as `db` has it.
    private static func count(of uid: String, in db: Database) throws -> MissedCalls {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT unseen, revision FROM missed_call_counts WHERE uid = ?
            """), arguments: [uid])
        else { return MissedCalls(unseen: 0, revision: 0) }
        return MissedCalls(unseen: row["unseen"], revision: row["revision"])
    }
}
