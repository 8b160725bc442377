import CallGateCore
import Foundation
import PostgresNIO

extension PostgresCallLogStore {
    /// The calls still `initiated` or `ongoing`, oldest first, with their steps: what a
    /// restarted gateway resumes.
    public func openCalls() throws -> [CallLogRecord] {
        try blocking { [self] in
            try await reading("reading open calls") { [self] connection in
                try await records(connection.query("""
                    SELECT id, has_recording, record::text, participants::text, steps FROM calls
                    WHERE status IN ('initiated', 'ongoing') ORDER BY id
                    """, logger: logger), on: connection)
            }
        }
    }

    /// The calls still `initiated` or `ongoing`, oldest first, without their steps.
    public func liveCalls() throws -> [CallLogRecord] {
        try blocking { [self] in
            try await reading("reading live calls") { [self] connection in
                try await records(connection.query("""
                    SELECT id, has_recording, record::text, participants::text, NULL::text FROM calls
                    WHERE status IN ('initiated', 'ongoing') ORDER BY id
                    """, logger: logger), on: connection)
            }
        }
    }

    /// The highest call id ever saved, 0 for an empty store (deleting calls never lowers it).
    public func lastCallID() throws -> Int64 {
        try blocking { [self] in
            try await reading("reading the last call id") { [self] connection in
                var last: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT last_call_id FROM store_state WHERE id = 1", logger: logger
                ).decode(Int64.self) {
                    last = value
                }
                return last
            }
        }
    }

    /// Every group, by guid (byte order, as the SQLite store sorts them).
    public func groups() throws -> [GroupRecord] {
        try blocking { [self] in
            try await reading("reading groups") { [self] connection in
                var groups: [GroupRecord] = []
                let rows = try await connection.query(
                    "SELECT guid, name, icon, members::text FROM call_groups", logger: logger)
                for try await (guid, name, icon, members) in rows.decode((String, String, String?, String).self) {
                    groups.append(GroupRecord(
                        guid: guid, name: name, icon: icon,
                        members: try JSONDecoder().decode([String].self, from: Data(members.utf8))))
                }
                return groups.sorted { $0.guid < $1.guid }
            }
        }
    }

    /// The calls under `sessionId` that `viewer` was part of, newest first, with their steps.
    public func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord] {
        try blocking { [self] in
            try await reading("reading the calls of a session") { [self] connection in
                try await records(connection.query("""
                    SELECT c.id, c.has_recording, c.record::text, c.participants::text, c.steps FROM calls AS c
                    JOIN call_members AS m ON m.call_id = c.id AND m.uid = \(viewer)
                    WHERE c.session_id = \(sessionId) ORDER BY c.id DESC
                    """, logger: logger), on: connection)
            }
        }
    }

    /// The records of `rows` (id, has_recording, record, participants, steps: NULL for a page of
    /// the call log, which comes without them), with the recording URLs attached to them, in
    /// the rows' order.
    func records(_ rows: PostgresRowSequence, on connection: PostgresConnection) async throws -> [CallLogRecord] {
        let decoder = JSONDecoder()
        var records: [CallLogRecord] = []
        var recorded: [Int64] = []
        for try await (id, hasRecording, json, participants, steps) in rows.decode((Int64, Bool, String, String, String?).self) {
            records.append(try Self.record(json, participants: participants, steps: steps, decoder: decoder))
            if hasRecording {
                recorded.append(id)
            }
        }
        try await attachRecordingURLs(of: recorded, to: &records, on: connection)
        return records
    }

    /// A call's record from its `record`, `participants` and `steps` columns.
    static func record(_ json: String, participants: String, steps: String?, decoder: JSONDecoder) throws -> CallLogRecord {
        var record = try decoder.decode(CallLogRecord.self, from: Data(json.utf8))
        record.participants = try decoder.decode([CallLogParticipantRecord].self, from: Data(participants.utf8))
        record.steps = CallSteps(json: steps)
        return record
    }

    /// Attaches to `records` the URLs saved for the recordings of the calls `recorded` (those of
    /// them whose row has a recording).
    func attachRecordingURLs(
        of recorded: [Int64], to records: inout [CallLogRecord], on connection: PostgresConnection
    ) async throws {
        guard !recorded.isEmpty else { return }
        var urls: [Int64: [String: String]] = [:]
        for try await (callID, rid, url) in try await connection.query(
            "SELECT call_id, rid, url FROM recording_urls WHERE call_id = ANY (\(recorded)::bigint[])", logger: logger
        ).decode((Int64, String, String).self) {
            urls[callID, default: [:]][rid] = url
        }
        for index in records.indices {
            guard let attached = urls[records[index].id] else { continue }
            for recording in records[index].recordings.indices {
                records[index].recordings[recording].recordingUrl = attached[records[index].recordings[recording].rid]
            }
        }
    }
}
