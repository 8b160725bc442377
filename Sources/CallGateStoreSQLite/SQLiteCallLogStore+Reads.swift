import CallGateCore
import Foundation
import GRDB

extension SQLiteCallLogStore {
    /// The calls still `initiated` or `ongoing`, oldest first: what a restarted gateway
    /// resumes. Served by the partial index `calls_open`.
    public func openCalls() throws -> [CallLogRecord] {
        try read("reading open calls") { db in
            try CallLogReader(db: db).records(
                "SELECT \(CallLogReader.columnsWithSteps) FROM calls AS c WHERE c.status IN ('initiated', 'ongoing') ORDER BY c.id",
                arguments: [])
        }
    }

    /// The calls still `initiated` or `ongoing`, oldest first, without their steps. Served by
    /// the partial index `calls_open`.
    public func liveCalls() throws -> [CallLogRecord] {
        try read("reading live calls") { db in
            try CallLogReader(db: db).records(
                "SELECT \(CallLogReader.columns) FROM calls AS c WHERE c.status IN ('initiated', 'ongoing') ORDER BY c.id",
                arguments: [])
        }
    }

    /// The highest call id ever saved, 0 for an empty store; kept by SQLite in
    /// `sqlite_sequence`, so deleting calls never lowers it (ids are not reused).
    public func lastCallID() throws -> Int64 {
        try read("reading the last call id") { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'calls'") ?? 0
        }
    }

    /// Every group, by guid.
    public func groups() throws -> [GroupRecord] {
        try read("reading groups") { db in
            let decoder = JSONDecoder()
            let groups = try Row.fetchAll(db, sql: "SELECT guid, name, icon, members FROM call_groups").map { row in
                let members: String = row["members"]
                return GroupRecord(
                    guid: row["guid"], name: row["name"], icon: row["icon"],
                    members: try decoder.decode([String].self, from: Data(members.utf8)))
            }
            return groups.sorted { $0.guid < $1.guid }
        }
    }

    /// The calls under `sessionId` that `viewer` was part of, newest first, with their steps.
    public func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord] {
        try read("reading the calls of a session") { db in
            try CallLogReader(db: db).records(
                """
                SELECT \(CallLogReader.columnsWithSteps) FROM calls AS c
                JOIN call_members AS m ON m.call_id = c.id AND m.uid = ?
                WHERE c.session_id = ? ORDER BY c.id DESC
                """,
                arguments: [viewer, sessionId])
        }
    }
}
