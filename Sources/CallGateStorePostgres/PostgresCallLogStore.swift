import CallGateCore
import Foundation
import Logging
import PostgresNIO

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
    let client: PostgresClient
    let logger: Logger
    /// How long an operation waits for a pooled connection before it counts the server as down:
    /// PostgresNIO's pool itself queues a lease for up to 60 s while it cannot connect.
    let leaseTimeout: Duration
    private let running: Task<Void, Never>

    private init(location: PostgresLocation, logger: Logger, leaseTimeout: Duration) {
        self.location = location
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        // PostgresNIO reports every failed reconnect at info; the store's own errors say it once.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: location.configuration(), backgroundLogger: background)
        self.client = client
        running = Task.detached { await client.run() }
    }

    /// Connects to `location` and migrates its schema. Throws `PostgresStoreError` (kind `open`)
    /// when the server cannot be reached within `leaseTimeout` or refuses the migration, and
    /// `PostgresMigrator.Refusal` when its schema is newer than this build's.
    public static func open(
        _ location: PostgresLocation, logger: Logger, leaseTimeout: Duration = .seconds(2)
    ) async throws -> PostgresCallLogStore {
        let store = PostgresCallLogStore(location: location, logger: logger, leaseTimeout: leaseTimeout)
        do {
            try await store.withLease(.open, "migrating the schema") { connection in
                try await PostgresMigrator.migrate(on: connection, logger: logger)
            }
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// Closes every connection; the store takes nothing afterwards.
    public func close() {
        running.cancel()
    }

    /// Whether a write commits now: commits the one-row probe. For the writer's probe and the
    /// readiness check.
    public func isWritable() -> Bool {
        do {
            try blocking { [self] in
                try await transaction("probing writes") { [self] connection in
                    try await connection.query("""
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
    /// back when it throws.
    func transaction<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withLease(.write, action) { [logger] connection in
            try await connection.withTransaction(logger: logger) { try await body($0) }
        }
    }

    /// Runs `body` on a pooled connection, outside a transaction.
    func reading<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withLease(.read, action, body)
    }

    /// Leases a connection for `body`, or throws `unavailable` when none comes within
    /// `leaseTimeout`; `body`'s own errors become `PostgresStoreError`s of `kind`.
    private func withLease<T: Sendable>(
        _ kind: PostgresStoreError.Kind, _ action: String,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let gate = LeaseGate()
        let timeout = leaseTimeout
        let location = location
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { [client] in
                do {
                    return try await client.withConnection { connection in
                        guard gate.start() else { throw CancellationError() }
                        return try await body(connection)
                    }
                } catch {
                    guard gate.started else {
                        throw PostgresStoreError(
                            kind: .unavailable, description: "PostgreSQL at \(location) is unavailable (\(action))")
                    }
                    throw Self.wrapping(error, kind: kind, action: action, location: location)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                guard gate.timeOut() else { return nil }
                throw PostgresStoreError(
                    kind: .unavailable,
                    description: "PostgreSQL at \(location) gave no connection within \(timeout) (\(action))")
            }
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    return value
                }
            }
            throw PostgresStoreError(kind: .unavailable, description: "PostgreSQL at \(location): \(action) ended without a result")
        }
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

/// Who won between a lease and its timeout: the body never runs after the timeout was
/// reported, and the timeout is not reported once the body started.
private final class LeaseGate: @unchecked Sendable {
    private let lock = NSLock()
    private var state = 0  // 0 waiting, 1 started, 2 timed out

    func start() -> Bool { transition(to: 1) }
    func timeOut() -> Bool { transition(to: 2) }
    var started: Bool { lock.withLock { state == 1 } }

    private func transition(to next: Int) -> Bool {
        lock.withLock {
            guard state == 0 else { return false }
            state = next
            return true
        }
    }
}
