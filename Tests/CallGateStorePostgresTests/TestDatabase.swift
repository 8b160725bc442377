import Logging
import TestSupport

/// Quiet: the outage tests make PostgresNIO log every failed reconnect.
let testLogger: Logger = {
    var logger = Logger(label: "callgate.test.postgres")
    logger.logLevel = .critical
    return logger
}()

/// Runs `body` with the URL of a fresh database on a throwaway server of its own (and the
/// server, to stop or restart it), then stops the server and removes its files.
func withTestDatabase(_ body: (String, ThrowawayPostgres) async throws -> Void) async throws {
    let server = try await offPool { try ThrowawayPostgres() }
    do {
        let url = try await offPool { try server.createDatabase("callgate_test") } + "?sslmode=disable"
        try await body(url, server)
    } catch {
        try? await offPool { server.stop() }
        throw error
    }
    try await offPool { server.stop() }
}
