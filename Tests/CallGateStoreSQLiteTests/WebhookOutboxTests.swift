import CallGateCore
import CallGateStoreSQLite
import StoreTestSupport
import Testing

/// The outbox rules (`OutboxChecks`), on the SQLite store and on the in-memory one alike.
@Suite struct WebhookOutboxTests {
    @Test(arguments: OutboxChecks.all.map(\.0))
    func onSQLiteAndInMemory(check: String) throws {
        let run = try #require(OutboxChecks.all.first { $0.0 == check }).1
        try withStore { store, _ in try run(store) }
        try run(InMemoryCallLogStore())
    }
}
