import CallGateCore
import CallGateProtocol
import GRDB

/// A call's participants as the `calls.participants` column keeps them: a JSON array of
/// objects with the keys of `CallLogParticipantRecord`'s Codable form (a nil field left out;
/// null where the v2 migration wrote it), in order, so a call is one row however many
/// members it rang.
///
/// Written by `JSONWriter` and read back by SQLite's `json_each`, both because Foundation's
/// JSONEncoder and JSONDecoder cost about 5 and 7 µs per participant, more than SQLite took
/// to write a participant as a row of its own: a 100-member group ring would spend half a
/// millisecond on each save. SQLite's JSON functions end a string at an escaped U+0000, so
/// that one character does not survive; `FieldRules` refuses control characters in every uid,
/// name and avatar the gateway takes, so none reaches the store. Any thread; pure but for
/// `decode`, which runs on `db`.
enum ParticipantsJSON {
    /// `participants` as JSON text.
    static func encode(_ participants: [CallLogParticipantRecord]) -> String {
        var json = JSONWriter(capacity: participants.count * 96 + 2)
        json.raw("[")
        for (index, participant) in participants.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw(#"{"uid":"#)
            json.string(participant.uid)
            json.raw(#","name":"#)
            json.string(participant.name)
            if let avatar = participant.avatar {
                json.raw(#","avatar":"#)
                json.string(avatar)
            }
            json.raw(#","state":"#)
            json.string(participant.state.rawValue)
            write(participant.joinedAt, key: #","joinedAt":"#, to: &json)
            write(participant.leftAt, key: #","leftAt":"#, to: &json)
            write(participant.closedSeconds, key: #","closedSeconds":"#, to: &json)
            write(participant.stayStartedAt, key: #","stayStartedAt":"#, to: &json)
            write(participant.heldSeconds, key: #","heldSeconds":"#, to: &json)
            write(participant.holdStartedAt, key: #","holdStartedAt":"#, to: &json)
            if participant.heldAway == true {
                json.raw(#","heldAway":true"#)
            }
            json.raw("}")
        }
        json.raw("]")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The participants in `json` (as `encode` or the v2 migration writes it), read by SQLite
    /// inside `db`'s transaction; a missing or null optional field reads as nil (a missing
    /// `closedSeconds` as 0). Throws when an element has no uid, name or state, or a state this
    /// version does not know.
    static func decode(_ json: String, callID: Int64, in db: Database) throws -> [CallLogParticipantRecord] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT json_extract(value, '$.uid'), json_extract(value, '$.name'), json_extract(value, '$.avatar'),
                       json_extract(value, '$.state'), json_extract(value, '$.joinedAt'), json_extract(value, '$.leftAt'),
                       json_extract(value, '$.closedSeconds'), json_extract(value, '$.stayStartedAt'),
                       json_extract(value, '$.heldSeconds'), json_extract(value, '$.holdStartedAt'),
                       json_extract(value, '$.heldAway')
                FROM json_each(?) ORDER BY key
                """),
            arguments: [json])
        var participants: [CallLogParticipantRecord] = []
        while let row = try rows.next() {
            guard let uid = row[0] as String?, let name = row[1] as String?, let state = row[3] as String? else {
                throw SQLiteStoreError(kind: .read, message: "call \(callID) has a participant without a uid, name or state")
            }
            guard let parsed = CallLogParticipantState(rawValue: state) else {
                throw SQLiteStoreError(kind: .read, message: "call \(callID) has a participant in unknown state \(state)")
            }
            participants.append(CallLogParticipantRecord(
                uid: uid, name: name, avatar: row[2], state: parsed, joinedAt: row[4], leftAt: row[5],
                closedSeconds: row[6] ?? 0, stayStartedAt: row[7], heldSeconds: row[8], holdStartedAt: row[9],
                heldAway: (row[10] as Bool?) == true ? true : nil))
        }
        return participants
    }

    /// Writes `key` and `value` when `value` is not nil; `key` is `,"name":`.
    private static func write(_ value: Int64?, key: StaticString, to json: inout JSONWriter) {
        guard let value else { return }
        json.raw(key)
        json.integer(value)
    }
}
