import ArgumentParser
import CallGateStorePostgres
import CallGateStoreSQLite
import Foundation
import Logging

/// `callgate migrate`: brings a database's schema to this build's, as `serve` does at start, so
/// an operator can upgrade the schema before rolling out new gateways (or see that it is current).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the database's schema to this version's (serve does it too when it starts).",
        discussion: "The database can also come from CALLGATE_DATABASE. Migrations run in one transaction (PostgreSQL, under a lock, so gateways starting at the same time wait) and never change a schema newer than this version's: that is refused."
    )

    @Option(help: "SQLite file (default ./callgate.sqlite) or postgres://user:password@host:port/database[?sslmode=...].")
    var database: String?

    func run() async throws {
        let path = database ?? EnvironmentDefault.string("CALLGATE_DATABASE") ?? "./callgate.sqlite"
        if PostgresLocation.names(path) {
            let location = try PostgresLocation(path)
            let logger = Logger.quiet(label: "callgate.migrate")
            let applied = try await PostgresCallLogStore.migrate(location, logger: logger)
            report(applied.map { version in
                "\(version) (\(PostgresMigrations.all.first { $0.version == version }?.name ?? ""))"
            }, database: "PostgreSQL at \(location)", current: "version \(PostgresMigrations.newest)")
        } else {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("there is no SQLite file at \(path) (serve creates one; migrate only upgrades)")
            }
            report(try SQLiteCallLogStore.migrate(path: path), database: "SQLite file \(path)", current: "the current one")
        }
    }

    private func report(_ applied: [String], database: String, current: String) {
        if applied.isEmpty {
            print("\(database): the schema is already \(current)")
        } else {
            print("\(database): applied \(applied.joined(separator: ", ")); the schema is now \(current)")
        }
    }
}

extension Logger {
    /// A logger for a command's library calls: warnings and worse only, so the command's own
    /// lines are its output.
    static func quiet(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }
}
