import CallGateCore
import CallGateProtocol
import GRDB

/// A call's participants as the `calls.participants` column keeps them: a JSON array of
/// objects with the keys of `CallLogParticipantRecord`'s Codable form (a nil field left out;
/// null where the v2 migration wrote it), in order, so a call is one row however many
/// members it rang.
///
/// Written here by hand and read back by SQLite's `json_each`, both because Foundation's
/// JSONEncoder and JSONDecoder cost about 5 and 7 µs per participant, more than SQLite took
/// to write a participant as a row of its own: a 100-member group ring would spend half a
/// millisecond on each save. SQLite's JSON functions end a string at an escaped U+0000, so
/// that one character does not survive; `FieldRules` refuses control characters in every uid,
/// name and avatar the gateway takes, so none reaches the store. Any thread; pure but for
/// `decode`, which runs on `db`.
enum ParticipantsJSON {
    /// `participants` as JSON text.
    static func encode(_ participants: [CallLogParticipantRecord]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(participants.count * 96 + 2)
        for (index, participant) in participants.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(#"{"uid":"#, to: &bytes)
            appendString(participant.uid, to: &bytes)
            append(#","name":"#, to: &bytes)
            appendString(participant.name, to: &bytes)
            if let avatar = participant.avatar {
                append(#","avatar":"#, to: &bytes)
                appendString(avatar, to: &bytes)
            }
            append(#","state":"#, to: &bytes)
            appendString(participant.state.rawValue, to: &bytes)
            appendNumber(participant.joinedAt, key: #","joinedAt":"#, to: &bytes)
            appendNumber(participant.leftAt, key: #","leftAt":"#, to: &bytes)
            appendNumber(participant.closedSeconds, key: #","closedSeconds":"#, to: &bytes)
            appendNumber(participant.stayStartedAt, key: #","stayStartedAt":"#, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
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
                       json_extract(value, '$.closedSeconds'), json_extract(value, '$.stayStartedAt')
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
                closedSeconds: row[6] ?? 0, stayStartedAt: row[7]))
        }
        return participants
    }

    /// Appends `value` as a JSON string: quoted, with `"`, `\` and the control characters
    /// escaped (RFC 8259 §7); everything else is copied as UTF-8.
    private static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                append(#"\u00"#, to: &bytes)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends a static piece of the text.
    private static func append(_ piece: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: piece.utf8Start, count: piece.utf8CodeUnitCount))
    }

    /// Appends `key` and `value` when `value` is not nil; `key` is `,"name":`.
    private static func appendNumber(_ value: Int64?, key: StaticString, to bytes: inout [UInt8]) {
        guard let value else { return }
        append(key, to: &bytes)
        bytes.append(contentsOf: String(value).utf8)
    }
}
