import CallGateCore
import CallGateProtocol
import Foundation
import GRDB

/// Performs store writes inside one open write transaction, with cached statements.
///
/// Lives for one `apply` batch (or one URL attachment) on the writer thread; never shared.
struct StoreTransaction {
    /// The connection, inside a write transaction.
    let db: Database
    /// The participant uids committed before this transaction, for the calls still open.
    let committed: CommittedMembers
    /// One encoder for the batch.
    let encoder = JSONEncoder()
    /// What this transaction wrote for each call it saved: the participant uids of an open
    /// call, nil for a finished one. `committed` takes it over once the transaction commits.
    private(set) var saved: [Int64: [String]?] = [:]
    /// uid -> how much the transaction's saves changed their unseen count (a missed call noted,
    /// or one of a call they are no longer part of dropped), and the lowest call id noted.
    private(set) var missing: [String: (count: Int, from: Int64?)] = [:]
    /// Whether a save dropped an unseen missed call (no row tells a recount after a crash).
    private(set) var droppedUnseen = false
    /// The enabled webhook endpoints, once the transaction's first webhook read them.
    private var endpoints: [(id: String, types: Set<String>?)]?

    init(db: Database, committed: CommittedMembers) {
        self.db = db
        self.committed = committed
    }

    /// Applies one write.
    mutating func perform(_ write: StoreWrite) throws {
        switch write {
        case .call(let record):
            try save(record)
        case .putGroup(let group):
            try put(group)
        case .deleteGroup(let guid):
            try db.cachedStatement(sql: "DELETE FROM call_groups WHERE guid = ?").execute(arguments: [guid])
        case .webhook(let message):
            try enqueue(message)
        }
    }

    /// Puts `message` in the outbox with a pending delivery, due at once, for each enabled
    /// endpoint that wants its type; writes nothing when none does.
    mutating func enqueue(_ message: WebhookMessage) throws {
        let type = message.event.type.rawValue
        let wanting = try enabledEndpoints().filter { $0.types?.contains(type) ?? true }
        guard !wanting.isEmpty else { return }
        let sessionId = message.event.sessionId
        try db.cachedStatement(sql: """
            INSERT INTO webhook_messages (id, type, session_id, created_at, body) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [
                message.id, type, sessionId, message.timestamp, String(decoding: message.payload(), as: UTF8.self),
            ])
        let delivery = try db.cachedStatement(sql: """
            INSERT INTO webhook_deliveries (message_id, endpoint_id, session_id, status, next_attempt_at)
            VALUES (?, ?, ?, 'pending', ?)
            """)
        for endpoint in wanting {
            try delivery.execute(arguments: [message.id, endpoint.id, sessionId, message.timestamp])
        }
    }

    /// The enabled endpoints, oldest first, with the event types each wants (nil: every type, as
    /// when the stored list cannot be read, like the admin API shows it). Read at the
    /// transaction's first webhook only: a group ring's hundred events look them up once.
    private mutating func enabledEndpoints() throws -> [(id: String, types: Set<String>?)] {
        if let endpoints {
            return endpoints
        }
        let decoder = JSONDecoder()
        let loaded = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, event_types FROM webhook_endpoints WHERE enabled = 1 ORDER BY created_at, id
            """)).map { row in
                (id: row["id"] as String, types: (row["event_types"] as String?)
                    .flatMap { try? decoder.decode([String].self, from: Data($0.utf8)) }.map(Set.init))
            }
        endpoints = loaded
        return loaded
    }

    /// Inserts or replaces the call with `record.id`, participants included (one row), and
    /// brings `call_members` in line with its participants: a group ring writes its member
    /// rows once, at the ring, and a later save of the same participants writes none. The
    /// uids written before come from memory while the call is open, else from its row.
    mutating func save(_ record: CallLogRecord) throws {
        let old = try writtenUIDs(of: record.id) ?? storedUIDs(of: record.id)
        try db.cachedStatement(sql: CallRow.upsertSQL).execute(arguments: try CallRow(record, encoder: encoder).arguments)
        let uids = record.participants.map(\.uid)
        saved[record.id] = record.callStatus.isTerminal ? .some(nil) : uids
        try noteMissed(record)
        guard old != uids else { return }
        let before = Set(old)
        let after = Set(uids)
        guard before != after else { return }
        if before.isEmpty {
            try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO call_members (uid, call_id)
                SELECT json_extract(p.value, '$.uid'), c.id FROM calls AS c, json_each(c.participants) AS p WHERE c.id = ?
                """).execute(arguments: [record.id])
        } else {
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO call_members (uid, call_id) VALUES (?, ?)")
            for uid in after.subtracting(before) {
                try insert.execute(arguments: [uid, record.id])
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM call_members WHERE uid = ? AND call_id = ?")
        for uid in before.subtracting(after) {
            try delete.execute(arguments: [uid, record.id])
            try forgetMissed(record.id, of: uid)
        }
    }

    /// Drops call `id` as a missed call of `uid`, who is no longer part of it: a call outside a
    /// user's log is not theirs to see, and their walk (`SeenWalk`) would never find it.
    private mutating func forgetMissed(_ id: Int64, of uid: String) throws {
        // The row itself, not `seen_at IS NULL`: SQLite 3.40 answers that 0 in a DELETE's RETURNING.
        let dropped = try Row.fetchOne(db.cachedStatement(sql: """
            DELETE FROM missed_calls WHERE call_id = ? AND uid = ? RETURNING seen_at
            """), arguments: [id, uid])
        guard let dropped, dropped[0] as Int64? == nil else { return }
        missing[uid, default: (0, nil)].count -= 1
        droppedUnseen = true
    }

    /// Notes the calls `record` makes missed, once per user (`MissedCallStore`): one statement for
    /// all its missed users, which answers those it had not noted yet.
    private mutating func noteMissed(_ record: CallLogRecord) throws {
        let uids = record.missedUIDs
        guard !uids.isEmpty else { return }
        let added = try String.fetchAll(db.cachedStatement(sql: """
            INSERT INTO missed_calls (call_id, uid) SELECT ?, value FROM json_each(?) WHERE true
            ON CONFLICT DO NOTHING RETURNING uid
            """), arguments: [record.id, Self.json(uids)])
        for uid in added {
            let noted = missing[uid, default: (0, nil)]
            missing[uid] = (noted.count + 1, min(noted.from ?? record.id, record.id))
        }
    }

    /// `value` as JSON text, for `json_each`: written directly, since a cancelled group ring
    /// passes a hundred uids twice per transaction.
    static func json(_ value: [String]) -> String {
        var json = JSONWriter(capacity: value.count * 24)
        json.array(value)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The participant uids of call `id` as this transaction or the last commit left them,
    /// when known without reading its row. `apply` saves a call once per batch, but a
    /// transaction stays right when a call is saved twice in it.
    private func writtenUIDs(of id: Int64) -> [String]? {
        if let written = saved[id] {
            return written
        }
        return committed.uids(of: id)
    }

    /// The participant uids of call `id` as its row has them; empty for a new call.
    private func storedUIDs(of id: Int64) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: """
            SELECT json_extract(p.value, '$.uid') FROM calls AS c, json_each(c.participants) AS p
            WHERE c.id = ? ORDER BY p.key
            """), arguments: [id])
    }

    /// Creates or replaces a group, members in order.
    func put(_ group: GroupRecord) throws {
        let members = String(decoding: try encoder.encode(group.members), as: UTF8.self)
        try db.cachedStatement(sql: """
            INSERT INTO call_groups (guid, name, icon, members) VALUES (?, ?, ?, ?)
            ON CONFLICT (guid) DO UPDATE SET name = excluded.name, icon = excluded.icon, members = excluded.members
            """).execute(arguments: [group.guid, group.name, group.icon, members])
    }

    /// Attaches `url` to recording `rid` of the newest call under `sessionId`, when that call
    /// has such a recording; returns whether it did.
    func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch {
        let matches = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT c.id FROM calls AS c WHERE c.session_id = ? AND EXISTS (
                SELECT 1 FROM json_each(c.record, '$.recordings') AS r
                WHERE json_extract(r.value, '$.rid') = ? AND (? IS NULL OR json_extract(r.value, '$.startedAt') = ?)
            ) LIMIT 2
            """), arguments: [sessionId, rid, startedAt, startedAt])
        guard let callID = matches.first else { return .notFound }
        guard matches.count == 1 else { return .ambiguous }
        try db.cachedStatement(sql: """
            INSERT INTO recording_urls (call_id, rid, url) VALUES (?, ?, ?)
            ON CONFLICT (call_id, rid) DO UPDATE SET url = excluded.url
            """).execute(arguments: [callID, rid, url])
        return .attached
    }
}
