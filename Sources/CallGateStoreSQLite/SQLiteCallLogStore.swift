import CallGateCore
import Foundation
import GRDB

/// The call log and group store on an SQLite file, through GRDB: WAL mode, so readers (HTTP
/// handlers) never wait for the writer thread and the writer never waits for them.
///
/// Thread-safe. `apply` is meant for the gateway's one writer thread, which batches writes so
/// that one transaction (one commit, one fsync under `.powerLoss`) covers many transitions:
/// the group commit. Reads may come from any thread but the service thread, since every call
/// blocks on disk.
public final class SQLiteCallLogStore: CallLogStore {
    /// The database file.
    public let path: String
    /// What a commit survives.
    public let durability: Durability
    /// One writer connection and a pool of readers.
    let pool: DatabasePool
    /// The participant uids of the open calls as last committed (see `CommittedMembers`).
    let committedMembers = CommittedMembers()
    /// The unseen missed-call counts changed since they were last written.
    let missedCounts: MissedCountCache
    /// The migrations opening the file applied, oldest first (empty: its schema was current).
    public let migrationsApplied: [String]

    /// Opens (creating if needed) the database at `path` and migrates its schema.
    ///
    /// Throws an `SQLiteStoreError` that says why when the directory is missing, the file or
    /// directory is not writable, the file is not an SQLite database, or its schema was written
    /// by a newer version (this one would not know the newer invariants, so it refuses).
    /// `busyTimeout` is how long a statement waits for a lock another process holds (a backup,
    /// an operator's `sqlite3` shell) before it fails.
    ///
    /// `durability` defaults to `.powerLoss`: with the writer's group commit its fsync costs
    /// latency, not throughput (a one-record commit took 0.2 to 4 ms on the 2-core development
    /// VM, depending on the host's disk load, against 0.1 ms without the fsync), and then no
    /// acknowledged call is lost even when the host goes down. `.processCrash` is for hosts
    /// where that latency matters more.
    public convenience init(path: String, durability: Durability = .powerLoss, busyTimeout: TimeInterval = 5) throws {
        try self.init(path: path, durability: durability, busyTimeout: busyTimeout, missedCounts: MissedCountCache())
    }

    /// Migrates the file at `path` to this version's schema and returns the migrations applied,
    /// without taking the file over: the missed-call counts a crash left unwritten are the next
    /// `serve`'s to recount, so this may run beside a gateway that owns the file
    /// (`callgate migrate`).
    public static func migrate(path: String) throws -> [String] {
        try SQLiteCallLogStore(
            path: path, durability: .powerLoss, busyTimeout: 5, missedCounts: MissedCountCache(), recounting: false
        ).migrationsApplied
    }

    /// The store at `path`, holding changed missed-call counts in `missedCounts` between writes;
    /// `recounting`: it owns the file, so it recounts what a crash left unwritten.
    init(
        path: String, durability: Durability, busyTimeout: TimeInterval, missedCounts: MissedCountCache,
        recounting: Bool = true
    ) throws {
        self.path = path
        self.durability = durability
        self.missedCounts = missedCounts
        var configuration = Configuration()
        configuration.label = "callgate-store"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // After opening: DatabasePool sets NORMAL on its writer when it turns WAL on, after
            // any `prepareDatabase` hook. Only the writer commits, so only its setting counts.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(durability.synchronous)")
            }
        } catch {
            throw SQLiteStoreError.opening(error, path: path)
        }
        migrationsApplied = try Self.migrate(pool, path: path)
        if recounting {
            try recountMissedCalls()
        }
    }

    /// Applies the migrations this version knows, after checking that the file has none it
    /// does not; returns the ones it applied.
    private static func migrate(_ pool: DatabasePool, path: String) throws -> [String] {
        let migrator = CallLogSchema.migrator
        do {
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw SQLiteStoreError(
                    kind: .schema,
                    message: "call log database \(path): its schema is newer than this CallGate; refusing to open it")
            }
            let before = try pool.read { try migrator.appliedIdentifiers($0) }
            try migrator.migrate(pool)
            return migrator.migrations.filter { !before.contains($0) }
        } catch {
            throw SQLiteStoreError.wrapping(error, kind: .schema, action: "migrating the schema", path: path)
        }
    }

    /// Whether a write commits now: commits a one-row probe, so a read-only file or file
    /// system, a lost file permission or a lock held past the busy timeout all answer false.
    /// For a readiness check; blocks for one commit, waiting behind a batch in progress.
    public func isWritable() -> Bool {
        do {
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO write_probe (id, checked_at) VALUES (1, ?)
                        ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at
                        """,
                    arguments: [Int64(Date().timeIntervalSince1970)])
            }
            return true
        } catch {
            return false
        }
    }

    /// Runs `body` in a write transaction, wrapping errors.
    func write<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch {
            throw SQLiteStoreError.wrapping(error, kind: .write, action: action, path: path)
        }
    }

    /// Runs `body` in a read transaction (one snapshot), wrapping errors.
    func read<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw SQLiteStoreError.wrapping(error, kind: .read, action: action, path: path)
        }
    }
}
