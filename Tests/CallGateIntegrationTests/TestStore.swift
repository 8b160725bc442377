import CallGateCore
import CallGateStorePostgres
import CallGateStoreSQLite
import Foundation
import Logging
import Synchronization
import Testing
import TestSupport

/// The store a test gateway runs on: the tests that must hold on both run once per case.
enum TestStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Where a gateway on this store keeps its data: an SQLite file in `directory`, or a fresh
    /// database on the test process's PostgreSQL server. Pass it to the next gateway to restart
    /// on the same data.
    func database(in directory: TemporaryDirectory) async throws -> String {
        switch self {
        case .sqlite: directory.path("callgate.sqlite")
        case .postgres: try await SharedPostgres.freshDatabase()
        }
    }
}

/// One throwaway PostgreSQL server for the whole test process, started by the first test that
/// needs it and stopped when the process exits; each gateway gets a database of its own on it.
/// The tests that stop or restart a server start one of their own instead.
enum SharedPostgres {
    private static let state = Mutex<(server: ThrowawayPostgres?, databases: Int)>((nil, 0))

    /// A new empty database's URL (`sslmode=disable`: the test server has no certificate).
    static func freshDatabase() async throws -> String {
        try await offPool {
            try state.withLock { state in
                if state.server == nil {
                    state.server = try ThrowawayPostgres()
                    atexit { SharedPostgres.stop() }
                }
                state.databases += 1
                return try state.server!.createDatabase("gateway_\(state.databases)") + "?sslmode=disable"
            }
        }
    }

    private static func stop() {
        state.withLock { $0.server?.stop() }
    }
}

/// Opens the store a gateway is given: SQLite for a file path, PostgreSQL for a postgres:// URL.
func openTestStore(_ database: String) async throws -> any CallLogStore {
    if PostgresLocation.names(database) {
        var logger = Logger(label: "callgate-test.postgres")
        logger.logLevel = .critical
        return try await PostgresCallLogStore.open(PostgresLocation(database), logger: logger)
    }
    return try SQLiteCallLogStore(path: database, durability: .processCrash)
}
