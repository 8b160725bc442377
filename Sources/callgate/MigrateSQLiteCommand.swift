import ArgumentParser
import CallGateCore
import CallGateStorePostgres
import CallGateStoreSQLite
import Foundation
import Logging

/// `callgate migrate-sqlite`: copies an SQLite store into an empty PostgreSQL database, so a user
/// moving to PostgreSQL keeps every call log, group, webhook endpoint and pending webhook.
struct MigrateSQLiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-sqlite",
        abstract: "Copy an SQLite store (call logs, recordings, groups, webhook endpoints and deliveries) into an empty PostgreSQL database.",
        discussion: "Stop the gateway that uses the SQLite file first, and run no gateway on the PostgreSQL database yet: the copy reads one snapshot of the file, and what a gateway writes later is not copied. The copy is one transaction: when it fails, the PostgreSQL database is left as it was. It refuses a database that already holds calls, groups or webhooks. The PostgreSQL address can also come from CALLGATE_DATABASE."
    )

    @Option(help: "The SQLite file (default ./callgate.sqlite).")
    var from = "./callgate.sqlite"

    @Option(help: "The PostgreSQL database: postgres://user:password@host:port/database[?sslmode=...].")
    var to: String?

    @Option(name: .customLong("batch-size"), help: "Rows per insert, 1 to 10000 (default 1000).")
    var batchSize = 1000

    func validate() throws {
        guard (1...10_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 10000") }
    }

    func run() async throws {
        guard let address = to ?? EnvironmentDefault.string("CALLGATE_DATABASE") else {
            throw ValidationError("give --to postgres://... (or set CALLGATE_DATABASE)")
        }
        guard PostgresLocation.names(address) else {
            throw ValidationError("--to must be a postgres:// or postgresql:// address")
        }
        let location = try PostgresLocation(address)
        guard FileManager.default.fileExists(atPath: from) else {
            throw ValidationError("there is no SQLite file at \(from)")
        }
        let source = try SQLiteStoreExport(path: from)
        var expected: [StoreTable: Int] = [:]
        for table in StoreTable.allCases {
            expected[table] = try source.count(table)
        }
        let lastIDs = [StoreTable.calls: try source.lastID(of: .calls), .webhookDeliveries: try source.lastID(of: .webhookDeliveries)]
        let logger = Logger.quiet(label: "callgate.migrate-sqlite")
        // Fails within seconds when the server is down, instead of the pool's minute.
        try await PostgresCallLogStore.migrate(location, logger: logger)
        let counts = try await PostgresImport.copy(into: location, logger: logger, expected: expected, lastIDs: lastIDs) { copy in
            for table in StoreTable.allCases {
                var previous: SQLiteStoreExport.Batch?
                while let batch = try source.batch(table, after: previous, limit: batchSize) {
                    try await copy.insert(table, json: batch.json)
                    previous = batch
                }
            }
        }
        print("Copied SQLite file \(from) into PostgreSQL at \(location):")
        for (table, rows) in counts {
            let read = StoreTable(rawValue: table).flatMap { expected[$0] }.map { " (\($0) read)" } ?? " (derived)"
            print("  \(table): \(rows) rows\(read)")
        }
    }
}
