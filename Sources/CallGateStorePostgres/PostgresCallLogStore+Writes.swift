import CallGateCore
import CallGateProtocol
import Foundation
import PostgresNIO

extension PostgresCallLogStore {
    /// Applies `writes` in one transaction, committed before it returns; all or none. Every write
    /// is idempotent (calls and groups are upserts, member rows and outbox messages are inserted
    /// unless present), so a batch retried after a commit whose answer was lost leaves what one
    /// run would. A call saved several times in the batch is written once, as its last save
    /// (`StoreWrite.lastSaves`). The batch's calls are written by at most five prepared
    /// statements and its webhooks by one, whatever their number: a round trip each, not one
    /// per row. Groups are
    /// written in order among themselves; calls, groups and webhooks do not depend on each
    /// other.
    ///
    /// Cluster mode: every call is fenced by its owner's epoch (`UpsertCalls`). A call another
    /// node took over is left unwritten, and so are its member rows and the webhook messages of
    /// its session in the batch (every event is submitted with the save of the call it
    /// reports); its id is returned, and this store forgets it. On the writer thread.
    @discardableResult
    public func apply(_ writes: [StoreWrite]) throws -> StoreApplied {
        guard !writes.isEmpty else { return StoreApplied() }
        let kept = StoreWrite.lastSaves(writes)
        let (saved, fenced, missed) = try blocking { [self] in
            try await transaction("applying \(kept.count) writes") { [self] connection in
                var calls: [CallLogRecord] = []
                var messages: [WebhookMessage] = []
                let encoder = JSONEncoder()
                for change in kept {
                    switch change {
                    case .call(let record):
                        calls.append(record)
                    case .putGroup(let group):
                        try await put(group, encoder: encoder, on: connection)
                    case .deleteGroup(let guid):
                        try await connection.query("DELETE FROM call_groups WHERE guid = \(guid)", logger: logger)
                    case .webhook(let message):
                        messages.append(message)
                    }
                }
                let (saved, fenced, missed) = try await save(calls, encoder: encoder, on: connection)
                if !fenced.isEmpty {
                    let lost = Set(calls.filter { fenced.contains($0.id) }.map(\.sessionId))
                    messages.removeAll { lost.contains($0.event.sessionId) }
                }
                if !messages.isEmpty {
                    try await enqueue(messages, for: enabledEndpoints(on: connection), on: connection)
                }
                return (saved, fenced, missed)
            }
        }
        committedMembers.commit(saved.merging(fenced.map { ($0, [String]?.none) }) { kept, _ in kept })
        ownedEpochs.forget(saved.compactMap { $0.value == nil ? $0.key : nil })
        ownedEpochs.forget(fenced)
        return StoreApplied(fenced: fenced, missedCalls: missed)
    }

    /// Upserts the calls' rows, brings `call_members` in line with the participants of those the
    /// owner's fence let through (dropping the missed calls of members who left a call), notes
    /// the calls they make missed (`NoteMissedCalls`), and raises the last call id; nothing for no
    /// calls. Returns what `committedMembers` takes over once the transaction commits, the ids of
    /// the calls fenced out, and the missed-call counts changed.
    ///
    /// The rows go as one array per column through `unnest`, in the prepared statements of
    /// `PostgresWriteStatements.swift`; a missing time is `Self.noTime` there. Member rows
    /// change only where the participants did: for a
    /// call `committedMembers` knows, the uids added and removed; for one it does not (new, or
    /// last saved by another process), every uid, and any other row of it deleted.
    private func save(
        _ records: [CallLogRecord], encoder: JSONEncoder, on connection: PostgresConnection
    ) async throws -> (saved: [Int64: [String]?], fenced: Set<Int64>, missed: [String: MissedCalls]) {
        guard let highest = records.map(\.id).max() else { return ([:], [], [:]) }
        var ids: [Int64] = [], sessions: [String] = [], categories: [String] = [], types: [String] = []
        var statuses: [String] = [], initiators: [String] = [], receiverTypes: [String] = [], receiverIDs: [String] = []
        var initiated: [Int64] = [], started: [Int64] = [], ended: [Int64] = [], recorded: [Bool] = []
        var bodies: [String] = [], participants: [String] = [], epochs: [Int64] = [], steps: [String] = []
        var addedUIDs: [String] = [], addedCalls: [Int64] = [], removedUIDs: [String] = [], removedCalls: [Int64] = []
        var missedUIDs: [String] = [], missedCalls: [Int64] = []
        var unknown: [Int64] = []
        var saved: [Int64: [String]?] = [:]
        for record in records {
            var rest = record
            rest.participants = []
            ids.append(record.id)
            sessions.append(record.sessionId)
            categories.append(record.callCategory.rawValue)
            types.append(record.callType.rawValue)
            statuses.append(record.callStatus.rawValue)
            initiators.append(record.initiator.uid)
            let (receiverType, receiverID): (String, String) = switch record.receiver {
            case .user(let user)?: (ReceiverType.user.rawValue, user.uid)
            case .group(let group)?: (ReceiverType.group.rawValue, group.guid)
            case nil: ("", "")
            }
            receiverTypes.append(receiverType)
            receiverIDs.append(receiverID)
            initiated.append(record.initiatedAt)
            started.append(record.startedAt ?? Self.noTime)
            ended.append(record.endedAt ?? Self.noTime)
            recorded.append(!record.recordings.isEmpty)
            bodies.append(String(decoding: try encoder.encode(rest), as: UTF8.self))
            participants.append(String(decoding: try encoder.encode(record.participants), as: UTF8.self))
            steps.append(record.steps.json ?? "")
            epochs.append(ownedEpochs.epoch(of: record.id))
            let uids = record.participants.map(\.uid)
            saved[record.id] = record.callStatus.isTerminal ? .some(nil) : uids
            for uid in record.missedUIDs {
                missedUIDs.append(uid)
                missedCalls.append(record.id)
            }
            let now = Set(uids)
            let before = committedMembers.uids(of: record.id).map(Set.init)
            if before == nil {
                unknown.append(record.id)
            }
            for uid in now.subtracting(before ?? []).sorted() {
                addedUIDs.append(uid)
                addedCalls.append(record.id)
            }
            for uid in (before ?? []).subtracting(now).sorted() {
                removedUIDs.append(uid)
                removedCalls.append(record.id)
            }
        }
        let written = try await connection.writeReturningIDs(UpsertCalls.self, PostgresBindings(
            ids, sessions, categories, types, statuses, initiators, receiverTypes, receiverIDs, initiated, started, ended,
            recorded, bodies, participants, Self.noTime, owner ?? "", epochs, steps), logger: logger)
        let fenced = Set(ids).subtracting(written)
        if !fenced.isEmpty {
            saved = saved.filter { !fenced.contains($0.key) }
            unknown.removeAll { fenced.contains($0) }
            (addedUIDs, addedCalls) = Self.pairs(addedUIDs, addedCalls, keepingCallsNotIn: fenced)
            (removedUIDs, removedCalls) = Self.pairs(removedUIDs, removedCalls, keepingCallsNotIn: fenced)
            (missedUIDs, missedCalls) = Self.pairs(missedUIDs, missedCalls, keepingCallsNotIn: fenced)
        }
        var dropped: [String] = []
        if !unknown.isEmpty {
            dropped += try await connection.writeReturningUIDs(
                KeepOnlyMembers.self, PostgresBindings(unknown, addedUIDs, addedCalls), logger: logger)
        }
        if !removedUIDs.isEmpty {
            dropped += try await connection.writeReturningUIDs(
                DeleteMembers.self, PostgresBindings(removedUIDs, removedCalls), logger: logger)
        }
        if !addedUIDs.isEmpty {
            try await connection.write(InsertMembers.self, PostgresBindings(addedUIDs, addedCalls), logger: logger)
        }
        try await connection.write(RaiseLastCallID.self, PostgresBindings(highest), logger: logger)
        let missed = missedUIDs.isEmpty && dropped.isEmpty ? [:] : try await connection.writeReturningCounts(
            NoteMissedCalls.self, PostgresBindings(missedUIDs, missedCalls, dropped), logger: logger)
        return (saved, fenced, missed)
    }

    /// The (uid, call) pairs of the two parallel arrays whose call is not in `fenced`.
    private static func pairs(
        _ uids: [String], _ calls: [Int64], keepingCallsNotIn fenced: Set<Int64>
    ) -> ([String], [Int64]) {
        let kept = zip(uids, calls).filter { !fenced.contains($0.1) }
        return (kept.map(\.0), kept.map(\.1))
    }

    /// Stands for a missing time in `save`'s arrays: no clock gives it.
    private static let noTime = Int64.min

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

    /// Puts `messages` in the outbox with a pending delivery for each endpoint that wants its
    /// type, in order: one statement. A message no endpoint wants is left out; one already there
    /// (a retried batch) gets no new delivery.
    private func enqueue(
        _ messages: [WebhookMessage], for endpoints: [(id: String, types: Set<String>?)], on connection: PostgresConnection
    ) async throws {
        var ids: [String] = [], types: [String] = [], sessions: [String] = [], times: [Int64] = [], bodies: [String] = []
        var deliveryMessages: [String] = [], deliveryEndpoints: [String] = []
        var seen: Set<String> = []
        for message in messages where seen.insert(message.id).inserted {
            let type = message.event.type.rawValue
            let wanting = endpoints.filter { $0.types?.contains(type) ?? true }.map(\.id)
            guard !wanting.isEmpty else { continue }
            ids.append(message.id)
            types.append(type)
            sessions.append(message.event.sessionId)
            times.append(message.timestamp)
            bodies.append(String(decoding: message.payload(), as: UTF8.self))
            deliveryMessages += Array(repeating: message.id, count: wanting.count)
            deliveryEndpoints += wanting
        }
        guard !ids.isEmpty else { return }
        try await connection.write(EnqueueWebhooks.self, PostgresBindings(
            ids, types, sessions, times, bodies, deliveryMessages, deliveryEndpoints), logger: logger)
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
