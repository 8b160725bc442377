import CallGateCore
import CallGateProtocol
import GRDB

/// Reads and writes a call's participants as rows of `call_participants`, one per position,
/// with cached statements.
///
/// Used inside one transaction (the writer's, or a read's snapshot); never shared. Every
/// stored property of `CallLogParticipantRecord` has a column here: a test fails when the
/// record gains one, so a new field cannot be dropped silently.
struct ParticipantTable {
    /// The connection, inside a transaction.
    let db: Database

    /// The participants of call `callID` in order; empty for an unknown call.
    func participants(of callID: Int64) throws -> [CallLogParticipantRecord] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT uid, name, avatar, state, joined_at, left_at, closed_seconds, stay_started_at
                FROM call_participants WHERE call_id = ? ORDER BY position
                """),
            arguments: [callID])
        var participants: [CallLogParticipantRecord] = []
        while let row = try rows.next() {
            let state: String = row[3]
            guard let parsed = CallLogParticipantState(rawValue: state) else {
                throw SQLiteStoreError(kind: .read, message: "call \(callID) has a participant in unknown state \(state)")
            }
            participants.append(CallLogParticipantRecord(
                uid: row[0], name: row[1], avatar: row[2], state: parsed, joinedAt: row[4], leftAt: row[5],
                closedSeconds: row[6], stayStartedAt: row[7]))
        }
        return participants
    }

    /// Turns the rows of call `callID` from `old` into `new`: writes the positions whose
    /// participant changed and deletes the positions past the end of `new`.
    func update(_ callID: Int64, from old: [CallLogParticipantRecord], to new: [CallLogParticipantRecord]) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO call_participants (call_id, position, uid, name, avatar, state, joined_at, left_at,
                                           closed_seconds, stay_started_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (call_id, position) DO UPDATE SET
                uid = excluded.uid, name = excluded.name, avatar = excluded.avatar, state = excluded.state,
                joined_at = excluded.joined_at, left_at = excluded.left_at,
                closed_seconds = excluded.closed_seconds, stay_started_at = excluded.stay_started_at
            """)
        for (position, participant) in new.enumerated() where position >= old.count || old[position] != participant {
            try upsert.execute(arguments: [
                callID, position, participant.uid, participant.name, participant.avatar, participant.state.rawValue,
                participant.joinedAt, participant.leftAt, participant.closedSeconds, participant.stayStartedAt,
            ])
        }
        if old.count > new.count {
            try db.cachedStatement(sql: "DELETE FROM call_participants WHERE call_id = ? AND position >= ?")
                .execute(arguments: [callID, new.count])
        }
    }
}
