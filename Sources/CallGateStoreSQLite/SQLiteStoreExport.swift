import CallGateCore
import GRDB

/// Every row of an SQLite store, table by table in batches of JSON, all from one snapshot: what
/// `callgate migrate-sqlite` copies into PostgreSQL.
///
/// The file is opened as `serve` opens it first (migrated to this version's schema), so the rows
/// have the newest shape. A batch is SQLite's own JSON of the rows, one object per row with every
/// column: integers exact, text as strings, NULL as null. `call_members` is left out: it is the
/// distinct uids of each call's participants, which the copy derives again. Not thread-safe.
public final class SQLiteStoreExport {
    /// Up to `limit` rows of a table as a JSON array, and where the next batch starts.
    public struct Batch {
        /// The rows, a JSON array of objects keyed by column name.
        public let json: String
        /// How many rows `json` holds.
        public let count: Int
        fileprivate let last: [DatabaseValue]
    }

    /// The file.
    public let path: String
    /// Kept open while the snapshot is read.
    private let store: SQLiteCallLogStore
    private let snapshot: DatabaseSnapshot

    /// Opens (and migrates) the store at `path` and takes the snapshot every read comes from.
    /// Throws `SQLiteStoreError` as `SQLiteCallLogStore.init` does.
    public init(path: String) throws {
        self.path = path
        store = try SQLiteCallLogStore(path: path)
        do {
            snapshot = try store.pool.makeSnapshot()
        } catch {
            throw SQLiteStoreError.wrapping(error, kind: .read, action: "taking a snapshot", path: path)
        }
    }

    /// The highest id ever given to a row of `table` (`calls` or `webhook_deliveries`): ids are
    /// not reused, even for deleted rows.
    public func lastID(of table: StoreTable) throws -> Int64 {
        try read("reading the last id of \(table.rawValue)") { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.rawValue]) ?? 0
        }
    }

    /// How many rows `table` holds.
    public func count(_ table: StoreTable) throws -> Int {
        try read("counting \(table.rawValue)") { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.rawValue)") ?? 0
        }
    }

    /// The first `limit` rows of `table` after `previous` (from the start when nil), in key
    /// order; nil when there are none.
    public func batch(_ table: StoreTable, after previous: Batch?, limit: Int) throws -> Batch? {
        try read("reading \(table.rawValue)") { db in
            let columns = try db.columns(in: table.rawValue).map(\.name)
            // Quoted: the names come from the file, which may not be one of ours.
            let object = columns.map { "'\($0.replacingOccurrences(of: "'", with: "''"))', \($0.quotedDatabaseIdentifier)" }
                .joined(separator: ", ")
            let key = table.key.joined(separator: ", ")
            var arguments = StatementArguments()
            var condition = ""
            if let last = previous?.last {
                condition = "WHERE (\(key)) > (\(Array(repeating: "?", count: last.count).joined(separator: ", ")))"
                arguments = StatementArguments(last)
            }
            arguments += [max(1, limit)]
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(key), json_object(\(object)) FROM \(table.rawValue) \(condition) ORDER BY \(key) LIMIT ?
                """, arguments: arguments)
            guard let final = rows.last else { return nil }
            let keys = table.key.count
            let json = "[" + rows.map { $0[keys] as String }.joined(separator: ",") + "]"
            return Batch(json: json, count: rows.count, last: (0..<keys).map { final[$0] })
        }
    }

    private func read<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try snapshot.read(body)
        } catch {
            throw SQLiteStoreError.wrapping(error, kind: .read, action: action, path: path)
        }
    }
}

extension StoreTable {
    /// The columns a batch is ordered and continued by: the primary key, or the rowid, which is
    /// insertion order for the attempts (they have no key of their own).
    fileprivate var key: [String] {
        switch self {
        case .calls, .webhookDeliveries: ["id"]
        case .recordingURLs: ["call_id", "rid"]
        case .missedCalls: ["call_id", "uid"]
        case .missedCallCounts: ["uid"]
        case .groups, .webhookEndpoints, .webhookMessages, .webhookAttempts: ["rowid"]
        }
    }
}
