import Logging
import PostgresNIO

/// Brings a database to `PostgresMigrations.newest`, in one transaction under an advisory lock:
/// two gateways starting at once migrate once (the second waits, then finds nothing to do), and
/// a migration that fails leaves nothing behind (PostgreSQL's DDL is transactional).
public enum PostgresMigrator {
    /// What a database holds that this build cannot use.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The advisory lock's key: "CallGate" in ASCII.
    static let lockKey: Int64 = 0x4361_6C6C_4761_7465

    /// Applies the missing migrations up to version `last`; returns the versions it applied
    /// (empty: the schema was current). Throws `Refusal` when the database's schema is newer
    /// than this build's.
    @discardableResult
    public static func migrate(
        _ client: PostgresClient, through last: Int = PostgresMigrations.newest, logger: Logger
    ) async throws -> [Int] {
        try await client.withConnection { try await migrate(on: $0, through: last, logger: logger) }
    }

    /// `migrate(_:through:logger:)` on a connection the caller holds.
    @discardableResult
    public static func migrate(
        on connection: PostgresConnection, through last: Int = PostgresMigrations.newest, logger: Logger
    ) async throws -> [Int] {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query(
                "SELECT version FROM schema_migrations", logger: logger
            ).decode(Int.self) {
                applied.insert(version)
            }
            if let newer = applied.max(), newer > PostgresMigrations.newest {
                throw Refusal(description: """
                    the database's schema is version \(newer), newer than this build's \(PostgresMigrations.newest): \
                    run a newer callgate against it
                    """)
            }
            var done: [Int] = []
            for migration in PostgresMigrations.all where migration.version <= last && !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                done.append(migration.version)
            }
            return done
        }
    }

    /// The versions the database has applied, oldest first.
    public static func versions(_ client: PostgresClient, logger: Logger) async throws -> [Int] {
        var versions: [Int] = []
        let rows = try await client.query(
            "SELECT version FROM schema_migrations ORDER BY version", logger: logger)
        for try await version in rows.decode(Int.self) {
            versions.append(version)
        }
        return versions
    }
}
