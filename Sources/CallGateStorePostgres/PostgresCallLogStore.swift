import CallGateCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The call log, group and webhook outbox store on a PostgreSQL server, through PostgresNIO's
/// pooled client: what several gateway processes share.
///
/// Its methods are synchronous, like the SQLite store's: each blocks its caller until the server
/// answered, so they belong on the writer thread, the webhook dispatcher's thread and the read
/// queue, never on the service thread or a Swift concurrency thread (`blocking` waits on a
/// future, which would starve the cooperative pool).
public final class PostgresCallLogStore: Sendable {
    /// Where the server is (its description has no password).
    public let location: PostgresLocation
    let logger: Logger
    /// How long an operation waits for a pooled connection before it counts the server as down:
    /// PostgresNIO's pool itself queues a lease for up to 60 s while it cannot connect.
    let leaseTimeout: Duration
    /// How often an operation that has its connection is checked for the one way it can hang
    /// (see `Pool`): its connection closed under it.
    let hangCheck: Duration
    /// Cluster mode: the node recorded as the owner of every call this store saves.
    let owner: String?
    private let pool: Mutex<Pool>
    /// The participant uids of the open calls as last committed, so a save whose participants
    /// did not change writes no member rows (a group call's cancel or end).
    let committedMembers = CommittedMembers()
    /// Cluster mode: the epochs of the calls this process took over, which fence their writes.
    let ownedEpochs = OwnedEpochs()

    /// The client the store leases from, and its `run()` task. PostgresNIO 1.33 can hand out a
    /// connection whose channel has just closed (the server went down), and a query written to
    /// a closed channel never completes: its promise is dropped with the write. A lease checks
    /// `isClosed` first, which catches that at once; an operation still unanswered on a closed
    /// connection at a `hangCheck` is abandoned (its caller gets an error to retry on), and the
    /// client, which counts that connection as leased forever, is replaced by a fresh one. An
    /// operation on an open connection is never cut short: a slow server is waited for.
    private struct Pool {
        var client: PostgresClient
        var running: Task<Void, Never>
        var closed = false
    }

    private init(
        location: PostgresLocation, logger: Logger, leaseTimeout: Duration, hangCheck: Duration, owner: String? = nil
    ) {
        self.location = location
        self.owner = owner
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        self.hangCheck = hangCheck
        pool = Mutex(Self.makePool(location, logger: logger))
    }

    /// A client of `location` and its started `run()`. PostgresNIO reports every failed
    /// reconnect at info; the store's own errors say it once.
    private static func makePool(_ location: PostgresLocation, logger: Logger) -> Pool {
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: location.configuration(), backgroundLogger: background)
        return Pool(client: client, running: Task.detached { await client.run() })
    }

    /// Connects to `location` and migrates its schema; `owner` is the cluster node whose calls
    /// this store saves (every call it writes is recorded as that node's), nil for a single
    /// process. Throws `PostgresStoreError` (kind `open`)
    /// when the server cannot be reached within `leaseTimeout` or refuses the migration, and
    /// `PostgresMigrator.Refusal` when its schema is newer than this build's.
    public static func open(
        _ location: PostgresLocation, logger: Logger, leaseTimeout: Duration = .seconds(2),
        hangCheck: Duration = .seconds(5), owner: String? = nil
    ) async throws -> PostgresCallLogStore {
        let store = PostgresCallLogStore(
            location: location, logger: logger, leaseTimeout: leaseTimeout, hangCheck: hangCheck, owner: owner)
        do {
            try await store.migrate()
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// Migrates `location`'s schema as `open` does, failing as fast, and returns the versions it
    /// applied: `callgate migrate`.
    @discardableResult
    public static func migrate(
        _ location: PostgresLocation, logger: Logger, leaseTimeout: Duration = .seconds(2)
    ) async throws -> [Int] {
        let store = PostgresCallLogStore(location: location, logger: logger, leaseTimeout: leaseTimeout, hangCheck: .seconds(5))
        defer { store.close() }
        return try await store.migrate()
    }

    /// Applies the missing migrations on a leased connection; the versions it applied.
    @discardableResult
    private func migrate() async throws -> [Int] {
        try await withLease(.open, "migrating the schema") { [logger] connection in
            try await PostgresMigrator.migrate(on: connection, logger: logger)
        }
    }

    /// Closes every connection; the store takes nothing afterwards.
    public func close() {
        pool.withLock { pool in
            pool.closed = true
            pool.running.cancel()
        }
    }

    /// Whether a write commits now: commits the one-row probe. For the writer's probe and the
    /// readiness check.
    public func isWritable() -> Bool {
        do {
            try blocking { [self] in
                try await transaction("probing writes") { [self] connection in
                    _ = try await connection.query("""
                        INSERT INTO store_state (id, last_call_id) VALUES (1, 0)
                        ON CONFLICT (id) DO UPDATE SET last_call_id = store_state.last_call_id
                        """, logger: logger)
                }
            }
            return true
        } catch {
            return false
        }
    }

    /// Runs `body` to its end and returns its result; on a thread that may block.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: T.self)
        promise.completeWithTask(body)
        return try promise.futureResult.wait()
    }

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws (unless the connection closed, which rolls it back on the server).
    /// Not PostgresNIO's `withTransaction`, which would write its ROLLBACK to a closed channel
    /// (see `Pool`).
    func transaction<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withLease(.write, action) { [logger] connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                if !connection.isClosed {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                }
                throw error
            }
        }
    }

    /// Runs `body` on a pooled connection, outside a transaction.
    func reading<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withLease(.read, action, body)
    }

    /// Leases an open connection for `body` and returns what it returns. Throws `unavailable`
    /// when no connection comes within `leaseTimeout`, or when `body` is still unanswered at a
    /// `hangCheck` after its connection closed (then the client is replaced: see `Pool`);
    /// `body`'s own errors become `PostgresStoreError`s of `kind`. The work runs in a task of its
    /// own that this call does not wait for once it gave up, since a hung query would hold it
    /// forever.
    private func withLease<T: Sendable>(
        _ kind: PostgresStoreError.Kind, _ action: String,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let client = pool.withLock { $0.client }
        let (location, leaseTimeout, hangCheck) = (location, leaseTimeout, hangCheck)
        return try await withCheckedThrowingContinuation { continuation in
            let race = LeaseRace(continuation)
            let work = Task {
                do {
                    let value = try await client.withConnection { connection in
                        guard race.start(on: connection) else { throw CancellationError() }
                        guard !connection.isClosed else {
                            throw PostgresStoreError(
                                kind: .unavailable, description: "PostgreSQL at \(location): the connection closed (\(action))")
                        }
                        return try await body(connection)
                    }
                    race.finish(.success(value))
                } catch {
                    race.finish(.failure(
                        race.started
                            ? Self.wrapping(error, kind: kind, action: action, location: location)
                            : PostgresStoreError(kind: .unavailable, description: "PostgreSQL at \(location) is unavailable (\(action))")))
                }
            }
            race.watch(Task { [self] in
                try await Task.sleep(for: leaseTimeout)
                if race.finish(.failure(PostgresStoreError(
                    kind: .unavailable,
                    description: "PostgreSQL at \(location) gave no connection within \(leaseTimeout) (\(action))")),
                    unlessStarted: true)
                {
                    work.cancel()
                    return
                }
                while true {
                    try await Task.sleep(for: hangCheck)
                    guard race.connectionClosed else { continue }
                    if race.finish(.failure(PostgresStoreError(
                        kind: .unavailable,
                        description: "PostgreSQL at \(location): the connection closed under \(action)")))
                    {
                        work.cancel()
                        replace(client, because: action)
                    }
                    return
                }
            })
        }
    }

    /// Gives the store a fresh client in place of `client` (once, however many operations on it
    /// gave up), and shuts the old one down.
    private func replace(_ client: PostgresClient, because action: String) {
        let old: Task<Void, Never>? = pool.withLock { pool in
            guard !pool.closed, pool.client === client else { return nil }
            let old = pool.running
            pool = Self.makePool(location, logger: logger)
            return old
        }
        guard let old else { return }
        logger.error("PostgreSQL at \(location): \(action) hung on its connection; connecting again with a new pool")
        old.cancel()
    }

    /// `error` as a `PostgresStoreError` naming the action and, for a server error, its SQLSTATE
    /// and message (never the statement's values).
    static func wrapping(_ error: any Error, kind: PostgresStoreError.Kind, action: String, location: PostgresLocation) -> any Error {
        if let known = error as? PostgresStoreError { return known }
        if let refusal = error as? PostgresMigrator.Refusal { return refusal }
        let detail: String
        switch error {
        case let psql as PSQLError:
            if let fields = psql.serverInfo {
                detail = "\(fields[.sqlState] ?? "?") \(fields[.message] ?? "")"
            } else {
                detail = "\(psql.code)"
            }
        case let transaction as PostgresTransactionError:
            let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError
            return inner.map { wrapping($0, kind: kind, action: action, location: location) }
                ?? PostgresStoreError(kind: kind, description: "PostgreSQL at \(location): \(action) failed")
        default:
            detail = "\(error)"
        }
        return PostgresStoreError(kind: kind, description: "PostgreSQL at \(location): \(action) failed: \(detail)")
    }
}

/// Who answers a `withLease` call: the work, or a timeout, exactly once. The lease timeout only
/// counts until the work has its connection (`start`); `finish` resumes the caller the first
/// time and stops the timer task.
private final class LeaseRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var connection: PostgresConnection?
        var timer: Task<Void, any Error>?
    }
    private let state: Mutex<State>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        state = Mutex(State(continuation: continuation))
    }

    var started: Bool { state.withLock { $0.connection != nil } }

    /// Whether the work's connection has closed while the work runs.
    var connectionClosed: Bool { state.withLock { $0.connection?.isClosed ?? false } }

    /// The work got `connection`: true unless the caller was already answered.
    func start(on connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard state.continuation != nil else { return false }
            state.connection = connection
            return true
        }
    }

    /// Keeps the timer task, to cancel it when the work finishes first.
    func watch(_ timer: Task<Void, any Error>) {
        let finished = state.withLock { state in
            state.timer = timer
            return state.continuation == nil
        }
        if finished { timer.cancel() }
    }

    /// Answers the caller with `result` if nobody has (and, with `unlessStarted`, the work has
    /// no connection yet); whether it did.
    @discardableResult
    func finish(_ result: Result<T, any Error>, unlessStarted: Bool = false) -> Bool {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, any Error>?) in
            guard !(unlessStarted && state.connection != nil), let continuation = state.continuation else { return (nil, nil) }
            state.continuation = nil
            return (continuation, state.timer)
        }
        guard let continuation else { return false }
        timer?.cancel()
        continuation.resume(with: result)
        return true
    }
}
