import CallGateCore
import Foundation
import GRDB

/// Turns `calls` rows back into records, with their participants and attached recording URLs.
///
/// Lives for one read (any thread), inside the read's snapshot; never shared.
struct CallLogReader {
    /// The columns every record query selects, from `calls AS c`.
    static let columns = "c.id, c.has_recording, c.record, c.participants"
    /// The columns of a query whose records come with their steps.
    static let columnsWithSteps = columns + ", c.steps"

    /// The connection, inside a read transaction.
    let db: Database
    /// One decoder for the read.
    let decoder = JSONDecoder()
    /// The records `sql` selects (it selects `CallLogReader.columns`, or `columnsWithSteps` for
    /// records with their steps), in its order.
    func records(_ sql: String, arguments: StatementArguments) throws -> [CallLogRecord] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var records: [CallLogRecord] = []
        while let row = try rows.next() {
            let json: String = row["record"]
            var record = try decoder.decode(CallLogRecord.self, from: Data(json.utf8))
            record.participants = try ParticipantsJSON.decode(row["participants"], callID: record.id, in: db)
            if row.hasColumn("steps") {
                record.steps = CallSteps(json: row["steps"])
            }
            if row["has_recording"] as Bool {
                try attachURLs(to: &record)
            }
            records.append(record)
        }
        return records
    }

    /// Sets each recording's URL from `recording_urls` when any is attached to the call, as
    /// the in-memory store does: then a recording without an attached URL reads as nil.
    private func attachURLs(to record: inout CallLogRecord) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT rid, url FROM recording_urls WHERE call_id = ?"), arguments: [record.id])
        guard !rows.isEmpty else { return }
        var urls: [String: String] = [:]
        for row in rows {
            urls[row["rid"]] = row["url"] as String
        }
        for index in record.recordings.indices {
            record.recordings[index].recordingUrl = urls[record.recordings[index].rid]
        }
    }
}
