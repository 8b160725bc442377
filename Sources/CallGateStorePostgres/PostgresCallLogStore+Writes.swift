import CallGateCore
import CallGateProtocol
import Foundation
import PostgresNIO

extension PostgresCallLogStore {
    /// Applies `writes` in order in one transaction, committed before it returns; all or none.
    /// Every write is idempotent (calls and groups are upserts, member rows and outbox messages
    /// are inserted unless present), so a batch retried after a commit whose answer was lost
    /// leaves what one run would. A call saved several times in the batch is written once, as
    /// its last save (`StoreWrite.lastSaves`). On the writer thread.
    public func apply(_ writes: [StoreWrite]) throws {
        guard !writes.isEmpty else { return }
        let kept = StoreWrite.lastSaves(writes)
        try blocking { [self] in
            try await transaction("applying \(kept.count) writes") { [self] connection in
                var endpoints: [(id: String, types: Set<String>?)]?
                var highest: Int64?
                let encoder = JSONEncoder()
                for change in kept {
                    switch change {
                    case .call(let record):
                        try await save(record, encoder: encoder, on: connection)
                        highest = max(highest ?? record.id, record.id)
                    case .putGroup(let group):
                        try await put(group, encoder: encoder, on: connection)
                    case .deleteGroup(let guid):
                        try await connection.query("DELETE FROM call_groups WHERE guid = \(guid)", logger: logger)
                    case .webhook(let message):
                        if endpoints == nil {
                            endpoints = try await enabledEndpoints(on: connection)
                        }
                        try await enqueue(message, for: endpoints ?? [], on: connection)
                    }
                }
                if let highest {
                    try await connection.query("""
                        UPDATE store_state SET last_call_id = greatest(last_call_id, \(highest))
                        """, logger: logger)
                }
            }
        }
    }

    /// Upserts the call's row and brings `call_members` in line with its participants (`apply`
    /// raises the last call id once per batch).
    private func save(_ record: CallLogRecord, encoder: JSONEncoder, on connection: PostgresConnection) async throws {
        var rest = record
        rest.participants = []
        let json = String(decoding: try encoder.encode(rest), as: UTF8.self)
        let participants = String(decoding: try encoder.encode(record.participants), as: UTF8.self)
        let (receiverType, receiverID): (String?, String?) = switch record.receiver {
        case .user(let user)?: (ReceiverType.user.rawValue, user.uid)
        case .group(let group)?: (ReceiverType.group.rawValue, group.guid)
        case nil: (nil, nil)
        }
        try await connection.query("""
            INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, receiver_type, receiver_id,
                               initiated_at, started_at, ended_at, has_recording, record, participants)
            VALUES (\(record.id), \(record.sessionId), \(record.callCategory.rawValue), \(record.callType.rawValue),
                    \(record.callStatus.rawValue), \(record.initiator.uid), \(receiverType), \(receiverID),
                    to_timestamp(\(record.initiatedAt)), to_timestamp(\(record.startedAt)), to_timestamp(\(record.endedAt)),
                    \(!record.recordings.isEmpty),
                    \(json)::json, \(participants)::jsonb)
            ON CONFLICT (id) DO UPDATE SET
                session_id = excluded.session_id, category = excluded.category, call_type = excluded.call_type,
                status = excluded.status, initiator_uid = excluded.initiator_uid,
                receiver_type = excluded.receiver_type, receiver_id = excluded.receiver_id,
                initiated_at = excluded.initiated_at, started_at = excluded.started_at, ended_at = excluded.ended_at,
                has_recording = excluded.has_recording, record = excluded.record, participants = excluded.participants
            """, logger: logger)
        let uids = Array(Set(record.participants.map(\.uid))).sorted()
        try await connection.query("""
            DELETE FROM call_members WHERE call_id = \(record.id) AND NOT (uid = ANY (\(uids)::text[]))
            """, logger: logger)
        try await connection.query("""
            INSERT INTO call_members (uid, call_id) SELECT u, \(record.id) FROM unnest(\(uids)::text[]) AS u
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Creates or replaces a group, members in order.
    private func put(_ group: GroupRecord, encoder: JSONEncoder, on connection: PostgresConnection) async throws {
        let members = String(decoding: try encoder.encode(group.members), as: UTF8.self)
        try await connection.query("""
            INSERT INTO call_groups (guid, name, icon, members) VALUES (\(group.guid), \(group.name), \(group.icon), \(members)::jsonb)
            ON CONFLICT (guid) DO UPDATE SET name = excluded.name, icon = excluded.icon, members = excluded.members
            """, logger: logger)
    }

    /// The enabled endpoints, oldest first, with the event types each wants (nil: every type).
    private func enabledEndpoints(on connection: PostgresConnection) async throws -> [(id: String, types: Set<String>?)] {
        var endpoints: [(id: String, types: Set<String>?)] = []
        let rows = try await connection.query("""
            SELECT id, event_types::text FROM webhook_endpoints WHERE enabled ORDER BY created_at, id
            """, logger: logger)
        for try await (id, types) in rows.decode((String, String?).self) {
            let decoded = types.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            endpoints.append((id: id, types: decoded.map(Set.init)))
        }
        return endpoints
    }

    /// Puts `message` in the outbox with a pending delivery for each endpoint that wants its
    /// type; nothing when none does, nothing new when it is there already (a retried batch).
    private func enqueue(
        _ message: WebhookMessage, for endpoints: [(id: String, types: Set<String>?)], on connection: PostgresConnection
    ) async throws {
        let type = message.event.type.rawValue
        let wanting = endpoints.filter { $0.types?.contains(type) ?? true }.map(\.id)
        guard !wanting.isEmpty else { return }
        let sessionId = message.event.sessionId
        let body = String(decoding: message.payload(), as: UTF8.self)
        try await connection.query("""
            WITH message AS (
                INSERT INTO webhook_messages (id, type, session_id, created_at, body)
                VALUES (\(message.id), \(type), \(sessionId), callgate_time(\(message.timestamp)), \(body))
                ON CONFLICT (id) DO NOTHING RETURNING id)
            INSERT INTO webhook_deliveries (message_id, endpoint_id, session_id, status, next_attempt_at)
            SELECT m.id, e.id, \(sessionId), 'pending', callgate_time(\(message.timestamp))
            FROM message AS m, unnest(\(wanting)::text[]) WITH ORDINALITY AS e (id, position) ORDER BY e.position
            """, logger: logger)
    }
}

extension PostgresCallLogStore {
    /// Attaches the file URL of recording `rid` (started at `startedAt`, when given) of the call
    /// under `sessionId` that has it, durably. The recordings are matched here, not in SQL: a
    /// record's free-form metadata may hold `\u0000`, which PostgreSQL's JSON operators refuse.
    public func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch {
        try blocking { [self] in
            try await transaction("attaching a recording URL") { [self] connection in
                let decoder = JSONDecoder()
                var matches: [Int64] = []
                for try await (id, json) in try await connection.query("""
                    SELECT id, record::text FROM calls WHERE session_id = \(sessionId) AND has_recording ORDER BY id
                    """, logger: logger).decode((Int64, String).self) {
                    let record = try decoder.decode(CallLogRecord.self, from: Data(json.utf8))
                    if record.recordings.contains(where: { $0.rid == rid && (startedAt == nil || $0.startedAt == startedAt) }) {
                        matches.append(id)
                    }
                }
                guard let callID = matches.first else { return RecordingMatch.notFound }
                guard matches.count == 1 else { return RecordingMatch.ambiguous }
                try await connection.query("""
                    INSERT INTO recording_urls (call_id, rid, url) VALUES (\(callID), \(rid), \(url))
                    ON CONFLICT (call_id, rid) DO UPDATE SET url = excluded.url
                    """, logger: logger)
                return RecordingMatch.attached
            }
        }
    }
}

extension PostgresCallLogStore: CallLogStore {}
