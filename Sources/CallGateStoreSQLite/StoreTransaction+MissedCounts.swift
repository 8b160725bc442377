import CallGateProtocol
import GRDB

/// The unseen counts a transaction changed (`MissedCountCache`): staged from the cache or the
/// table, and now and then written, every held count at once.
extension StoreTransaction {
    /// The counts after what the transaction noted and dropped, each user's revision raised once
    /// and `unseen_from` lowered to the oldest call noted; starting from `cache`, or the table for
    /// a user it does not hold (one read for all of them).
    func stageMissedCounts(from cache: MissedCountCache) throws -> [String: MissedCountCache.Entry] {
        guard !missing.isEmpty else { return [:] }
        var base = cache.entries(for: missing.keys)
        let unread = missing.keys.filter { base[$0] == nil }
        if !unread.isEmpty {
            base.merge(try Self.writtenMissedCounts(of: unread, in: db)) { held, _ in held }
        }
        var staged: [String: MissedCountCache.Entry] = [:]
        staged.reserveCapacity(missing.count)
        for (uid, change) in missing {
            var entry = base[uid] ?? MissedCountCache.Entry(count: MissedCalls(unseen: 0, revision: 0), unseenFrom: nil)
            entry.count.unseen = max(0, entry.count.unseen + change.count)
            entry.count.revision += 1
            if let from = change.from {
                entry.unseenFrom = min(entry.unseenFrom ?? from, from)
            }
            if entry.count.unseen == 0 {
                entry.unseenFrom = nil
            }
            staged[uid] = entry
        }
        return staged
    }

    /// The counts of `uids` as `missed_call_counts` has them, in one read; a user without a row
    /// is absent. What `MissedCountCache` holds is newer: callers look there first.
    static func writtenMissedCounts(of uids: [String], in db: Database) throws -> [String: MissedCountCache.Entry] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT uid, unseen, revision, unseen_from FROM missed_call_counts
            WHERE uid IN (SELECT value FROM json_each(?))
            """), arguments: [json(uids)])
        var counts: [String: MissedCountCache.Entry] = [:]
        for row in rows {
            counts[row[0]] = MissedCountCache.Entry(count: MissedCalls(unseen: row[1], revision: row[2]), unseenFrom: row[3])
        }
        return counts
    }

    /// The lowest call id the transaction noted a missed call of.
    var lowestMissedCall: Int64? {
        missing.values.compactMap(\.from).min()
    }

    /// Writes `counts` to the table, as they stand. One statement for every user.
    func writeMissedCounts(_ counts: [String: MissedCountCache.Entry]) throws {
        guard !counts.isEmpty else { return }
        var json = JSONWriter(capacity: counts.count * 56)
        json.raw("{")
        for (index, (uid, entry)) in counts.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(uid)
            json.raw(":[")
            json.integer(entry.count.unseen)
            json.raw(",")
            json.integer(entry.count.revision)
            json.raw(",")
            if let from = entry.unseenFrom {
                json.integer(from)
            } else {
                json.raw("null")
            }
            json.raw("]")
        }
        json.raw("}")
        try db.cachedStatement(sql: """
            INSERT INTO missed_call_counts (uid, unseen, revision, unseen_from)
            SELECT key, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
            ON CONFLICT (uid) DO UPDATE SET
                unseen = excluded.unseen, revision = excluded.revision, unseen_from = excluded.unseen_from
            """).execute(arguments: [String(decoding: json.bytes, as: UTF8.self)])
    }

    /// Sets the lowest call id whose missed calls the written counts may lack (nil: none).
    func setRecountFrom(_ id: Int64?) throws {
        try db.cachedStatement(sql: "UPDATE missed_count_state SET recount_from = ?").execute(arguments: [id])
    }
}
