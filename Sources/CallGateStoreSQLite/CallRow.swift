import CallGateCore
import CallGateProtocol
import Foundation
import GRDB

/// The `calls` row of one record: the columns the queries filter on, the record as JSON
/// without its participants and steps, the participants (`ParticipantsJSON`) and the steps
/// (`CallSteps.json`).
///
/// Built on the writer thread inside `apply`.
struct CallRow {
    /// Every column of the upsert, in `CallRow.upsertSQL`'s order.
    let arguments: StatementArguments

    /// Inserts a call or replaces every column of the call with the same id. An upsert, not
    /// `INSERT OR REPLACE`: the row is updated in place, so the members and recording URLs
    /// that reference it stay.
    static let upsertSQL = """
        INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, receiver_type,
                           receiver_id, initiated_at, started_at, ended_at, has_recording, record, participants, steps)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
            session_id = excluded.session_id, category = excluded.category, call_type = excluded.call_type,
            status = excluded.status, initiator_uid = excluded.initiator_uid,
            receiver_type = excluded.receiver_type, receiver_id = excluded.receiver_id,
            initiated_at = excluded.initiated_at, started_at = excluded.started_at,
            ended_at = excluded.ended_at, has_recording = excluded.has_recording, record = excluded.record,
            participants = excluded.participants, steps = excluded.steps
        """

    /// The row of `record`, encoding JSON with `encoder`.
    init(_ record: CallLogRecord, encoder: JSONEncoder) throws {
        let receiverType: String?
        let receiverID: String?
        switch record.receiver {
        case .user(let user)?:
            (receiverType, receiverID) = (ReceiverType.user.rawValue, user.uid)
        case .group(let group)?:
            (receiverType, receiverID) = (ReceiverType.group.rawValue, group.guid)
        case nil:
            (receiverType, receiverID) = (nil, nil)
        }
        var rest = record
        rest.participants = []
        let json = String(decoding: try encoder.encode(rest), as: UTF8.self)
        arguments = [
            record.id, record.sessionId, record.callCategory.rawValue, record.callType.rawValue,
            record.callStatus.rawValue, record.initiator.uid, receiverType, receiverID, record.initiatedAt,
            record.startedAt, record.endedAt, !record.recordings.isEmpty, json,
            ParticipantsJSON.encode(record.participants), record.steps.json,
        ]
    }
}
