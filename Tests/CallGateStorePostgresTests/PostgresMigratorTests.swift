import CallGateStorePostgres
import Logging
import PostgresNIO
import TestSupport
import Testing

/// Migrations on a real, throwaway PostgreSQL server.
@Suite(.serialized) struct PostgresMigratorTests {
    static let logger = testLogger

    /// Runs `body` with a client of a fresh database on a server of its own, then stops it.
    static func withDatabase(_ body: (PostgresClient, ThrowawayPostgres) async throws -> Void) async throws {
        try await withTestDatabase { url, server in
            try await withClient(url) { try await body($0, server) }
        }
    }

    /// Runs `body` with a running client of `url`.
    static func withClient(_ url: String, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: try PostgresLocation(url).configuration(), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }

    /// The single `bigint` column of `query`'s rows.
    static func integers(_ client: PostgresClient, _ query: PostgresQuery) async throws -> [Int64] {
        var values: [Int64] = []
        for try await value in try await client.query(query, logger: logger).decode(Int64.self) {
            values.append(value)
        }
        return values
    }

    @Test func aFreshDatabaseGetsEveryMigrationOnceAndTheSchemaWorks() async throws {
        try await Self.withDatabase { client, _ in
            let first = try await PostgresMigrator.migrate(client, logger: Self.logger)
            let second = try await PostgresMigrator.migrate(client, logger: Self.logger)
            let versions = try await PostgresMigrator.versions(client, logger: Self.logger)
            let last = try await Self.integers(client, "SELECT last_call_id FROM store_state")
            #expect(first == PostgresMigrations.all.map(\.version) && second.isEmpty)
            #expect(versions == PostgresMigrations.all.map(\.version))
            #expect(last == [0])
        }
    }

    @Test func twoGatewaysMigratingAtOnceMigrateOnce() async throws {
        try await Self.withDatabase { client, _ in
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<2 {
                    group.addTask { try await PostgresMigrator.migrate(client, logger: Self.logger) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.sorted { $0.count < $1.count } == [[], PostgresMigrations.all.map(\.version)])
        }
    }

    @Test func aSchemaNewerThanThisBuildIsRefused() async throws {
        try await Self.withDatabase { client, _ in
            try await PostgresMigrator.migrate(client, logger: Self.logger)
            let future = PostgresMigrations.newest + 1
            try await client.query(
                "INSERT INTO schema_migrations (version, name) VALUES (\(future), 'from the future')", logger: Self.logger)
            await #expect {
                try await PostgresMigrator.migrate(client, logger: Self.logger)
            } throws: { error in
                "\(error)".contains("newer than this build")
            }
        }
    }

    @Test func committedRowsSurviveAnImmediateShutdownOfTheServer() async throws {
        try await withTestDatabase { url, server in
            try await Self.withClient(url) { client in
                try await PostgresMigrator.migrate(client, logger: Self.logger)
                try await client.query("UPDATE store_state SET last_call_id = 42", logger: Self.logger)
            }
            try await offPool {
                server.shutDownImmediately()
                try server.start()
            }
            try await Self.withClient(url) { restarted in
                let applied = try await PostgresMigrator.migrate(restarted, logger: Self.logger)
                let last = try await Self.integers(restarted, "SELECT last_call_id FROM store_state")
                #expect(applied.isEmpty && last == [42])
            }
        }
    }
}
