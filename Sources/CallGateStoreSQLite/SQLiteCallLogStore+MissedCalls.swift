import CallGateCore
import CallGateProtocol
import GRDB

/// Missed calls (`MissedCallStore`) in `missed_calls` and `missed_call_counts` (schema v5, v7); the
/// writer notes them as it saves calls (`StoreTransaction.noteMissed`). Any thread.
extension SQLiteCallLogStore {
    public func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls] {
        var counts: [String: MissedCalls] = [:]
        for uid in uids {
            counts[uid] = MissedCalls(unseen: 0, revision: 0)
        }
        guard !counts.isEmpty else { return counts }
        // The held counts first: a count the writer writes (and stops holding) after this
        // lookup is in the table by the time the read below starts.
        let held = missedCounts.entries(for: counts.keys)
        for (uid, entry) in held {
            counts[uid] = entry.count
        }
        let unread = counts.keys.filter { held[$0] == nil }
        guard !unread.isEmpty else { return counts }
        let written = try read("reading users' missed calls") { db in
            try StoreTransaction.writtenMissedCounts(of: unread, in: db)
        }
        for (uid, entry) in written {
            counts[uid] = entry.count
        }
        return counts
    }

    /// Marks the calls seen a transaction at a time (`SeenWalk`): each walks the user's calls
    /// (`call_members`) from where their unseen missed calls start, marks those rows seen and
    /// writes the count back.
    public func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        var limit = Int64.max
        if let sessionId {
            let last = try read("finding the call to mark missed calls seen through") { db in
                try Int64.fetchOne(db.cachedStatement(sql: """
                    SELECT max(c.id) FROM calls AS c JOIN call_members AS m ON m.call_id = c.id AND m.uid = ?
                    WHERE c.session_id = ?
                    """), arguments: [uid, sessionId])
            }
            guard let last else { return nil }
            limit = last
        }
        var walk = SeenWalk(limit: limit)
        while !walk.isDone {
            try write("marking missed calls seen") { db in
                try step(&walk, of: uid, at: at, in: db)
            }
        }
        return walk.mark
    }

    /// One step of `walk`, in `db`'s write transaction: from the user's held count, else their
    /// row; the count after it is written to the row at once.
    private func step(_ walk: inout SeenWalk, of uid: String, at: Int64, in db: Database) throws {
        let stood = try missedCounts.entries(for: [uid])[uid] ?? StoreTransaction.writtenMissedCounts(of: [uid], in: db)[uid]
        let count = stood?.count ?? MissedCalls(unseen: 0, revision: 0)
        let unseenFrom = stood?.unseenFrom
        guard let from = walk.begin(count: count, unseenFrom: unseenFrom) else { return }
        let walked = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT call_id FROM call_members WHERE uid = ? AND call_id BETWEEN ? AND ? ORDER BY call_id LIMIT ?
            """), arguments: [uid, from, walk.limit, SeenWalk.callsPerTransaction])
        var marked = 0
        if !walked.isEmpty {
            try db.cachedStatement(sql: """
                UPDATE missed_calls SET seen_at = ?
                WHERE call_id IN (SELECT value FROM json_each(?)) AND uid = ? AND seen_at IS NULL
                """).execute(arguments: [at, "[" + walked.map(String.init).joined(separator: ",") + "]", uid])
            marked = db.changesCount
        }
        let after = walk.end(from: from, walked: walked.count, last: walked.last, marked: marked, count: count, unseenFrom: unseenFrom)
        guard after.count != count || after.unseenFrom != unseenFrom else { return }
        try StoreTransaction(db: db, committed: committedMembers)
            .writeMissedCounts([uid: MissedCountCache.Entry(count: after.count, unseenFrom: after.unseenFrom)])
        db.afterNextTransaction(onCommit: { [missedCounts] _ in missedCounts.wrote(uid) })
    }

    /// Rebuilds the counts the last process held but did not write: of every user with a missed
    /// call from `missed_count_state.recount_from` on, the unseen ones counted again from where
    /// theirs start (`unseen_from`, or that call when lower), the revision raised past any the
    /// process told (`MissedCountCache.revisionHeadroom`). At opening, before any write.
    func recountMissedCalls() throws {
        try write("recounting missed calls") { db in
            guard let from = try Int64.fetchOne(db, sql: "SELECT recount_from FROM missed_count_state") else { return }
            var counts: [String: MissedCountCache.Entry] = [:]
            let uids = try String.fetchAll(db, sql: "SELECT DISTINCT uid FROM missed_calls WHERE call_id >= ?", arguments: [from])
            let written = try StoreTransaction.writtenMissedCounts(of: uids, in: db)
            for uid in uids {
                let start = min(written[uid]?.unseenFrom ?? from, from)
                let unseen = try Row.fetchOne(db, sql: """
                    SELECT count(*), min(m.call_id) FROM call_members AS m
                    JOIN missed_calls AS x ON x.call_id = m.call_id AND x.uid = m.uid AND x.seen_at IS NULL
                    WHERE m.uid = ? AND m.call_id >= ?
                    """, arguments: [uid, start])
                let total: Int = unseen?[0] ?? 0
                counts[uid] = MissedCountCache.Entry(
                    count: MissedCalls(unseen: total, revision: (written[uid]?.count.revision ?? 0) + missedCounts.revisionHeadroom),
                    unseenFrom: total > 0 ? unseen?[1] : nil)
            }
            let writer = StoreTransaction(db: db, committed: committedMembers)
            try writer.writeMissedCounts(counts)
            try writer.setRecountFrom(nil)
        }
    }

    public func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try read("reading which missed calls are unseen") { db in
            let encoded = "[" + ids.map(String.init).joined(separator: ",") + "]"
            return Set(try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT call_id FROM missed_calls
                WHERE call_id IN (SELECT value FROM json_each(?)) AND uid = ? AND seen_at IS NULL
                """), arguments: [encoded, uid]))
        }
    }
}
