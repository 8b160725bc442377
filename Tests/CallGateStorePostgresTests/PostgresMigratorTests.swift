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

    @Test func version2TurnsVersion1sTimesIntoTheSameInstantsAsTimestamptz() async throws {
        try await Self.withDatabase { client, _ in
            #expect(try await PostgresMigrator.migrate(client, through: 1, logger: Self.logger) == [1])
            let seconds: Int64 = 1_732_400_007
            let milliseconds: Int64 = 1_732_400_007_123
            try await client.query("""
                INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, initiated_at, started_at,
                                   has_recording, record)
                VALUES (7, 's', 'call', 'audio', 'ongoing', 'alice', \(seconds), NULL, false, '{}')
                """, logger: Self.logger)
            try await client.query("""
                INSERT INTO webhook_endpoints (id, url, secrets, enabled, created_at)
                VALUES ('ep_1', 'https://example.com/hook', '[]', true, \(milliseconds))
                """, logger: Self.logger)
            try await client.query("""
                INSERT INTO webhook_messages (id, type, session_id, created_at, body)
                VALUES ('msg_1', 'call.initiated', 's', \(milliseconds + 1), '{}')
                """, logger: Self.logger)
            try await client.query("""
                INSERT INTO webhook_deliveries (message_id, endpoint_id, session_id, status, next_attempt_at, finished_at)
                VALUES ('msg_1', 'ep_1', 's', 'pending', \(milliseconds + 2), NULL)
                """, logger: Self.logger)

            #expect(try await PostgresMigrator.migrate(client, through: 2, logger: Self.logger) == [2])
            let callTimes = try await Self.integers(client, """
                SELECT extract(epoch FROM initiated_at)::bigint FROM calls
                UNION ALL SELECT count(*) FROM calls WHERE started_at IS NULL
                """)
            let outboxTimes = try await Self.integers(client, """
                SELECT callgate_milliseconds(created_at) FROM webhook_endpoints
                UNION ALL SELECT callgate_milliseconds(created_at) FROM webhook_messages
                UNION ALL SELECT callgate_milliseconds(next_attempt_at) FROM webhook_deliveries
                UNION ALL SELECT count(*) FROM webhook_deliveries WHERE finished_at IS NULL
                """)
            let asText = try await client.query(
                "SELECT (initiated_at AT TIME ZONE 'UTC')::text FROM calls", logger: Self.logger
            ).collect().map { try $0.decode(String.self) }
            #expect(callTimes == [seconds, 1])
            #expect(outboxTimes == [milliseconds, milliseconds + 1, milliseconds + 2, 1])
            #expect(asText == ["2024-11-23 22:13:27"])
        }
    }

    @Test func version7KeysMissedCallsByCallAndFindsWhereEachUsersUnseenOnesStart() async throws {
        try await Self.withDatabase { client, _ in
            #expect(try await PostgresMigrator.migrate(client, through: 6, logger: Self.logger) == [1, 2, 3, 4, 5, 6])
            for id in 1...3 {
                try await client.query("""
                    INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, initiated_at, has_recording, record)
                    VALUES (\(id), 's', 'call', 'audio', 'unanswered', 'alice', now(), false, '{}')
                    """, logger: Self.logger)
            }
            try await client.query("""
                INSERT INTO call_members (uid, call_id) VALUES ('bob', 1), ('bob', 2), ('bob', 3), ('carol', 1), ('carol', 3)
                """, logger: Self.logger)
            // Dave was dropped from call 2 after he missed it: his missed call goes, and his count with it.
            try await client.query("""
                INSERT INTO missed_calls (uid, call_id, seen_at) VALUES
                    ('bob', 1, now()), ('bob', 2, NULL), ('bob', 3, NULL), ('carol', 1, now()), ('dave', 2, NULL)
                """, logger: Self.logger)
            try await client.query("""
                INSERT INTO missed_call_counts (uid, unseen, revision) VALUES ('bob', 2, 4), ('carol', 0, 2), ('dave', 1, 1)
                """, logger: Self.logger)

            #expect(try await PostgresMigrator.migrate(client, logger: Self.logger) == [7])
            let starts = try await client.query("""
                SELECT uid || '=' || unseen || '/' || revision || '/' || coalesce(unseen_from::text, 'nil')
                FROM missed_call_counts ORDER BY uid
                """, logger: Self.logger).collect().map { try $0.decode(String.self) }
            let key = try await client.query("""
                SELECT string_agg(a.attname, ',' ORDER BY k.position) FROM pg_index AS i
                CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, position)
                JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE i.indrelid = 'missed_calls'::regclass AND i.indisprimary
                """, logger: Self.logger).collect().map { try $0.decode(String.self) }
            let rows = try await Self.integers(client, "SELECT count(*) FROM missed_calls WHERE seen_at IS NULL")
            #expect(starts == ["bob=2/4/2", "carol=0/2/nil", "dave=0/2/nil"])
            #expect(key == ["call_id,uid"])
            #expect(rows == [2])
        }
    }

    @Test func millisecondsSurviveTheRoundTripThroughTimestamptz() async throws {
        try await Self.withDatabase { client, _ in
            try await PostgresMigrator.migrate(client, logger: Self.logger)
            let samples: [Int64] = [0, 1, -1, 999, 1_732_400_007_123, 1_732_400_007_999, 4_102_444_799_999, -86_400_001]
            for sample in samples {
                let back = try await Self.integers(client, "SELECT callgate_milliseconds(callgate_time(\(sample)))")
                #expect(back == [sample], "\(sample)")
            }
        }
    }
}
