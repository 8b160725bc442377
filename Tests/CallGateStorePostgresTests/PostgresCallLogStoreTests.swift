import CallGateCore
import CallGateProtocol
@testable import CallGateStorePostgres
import Foundation
import Logging
import StoreTestSupport
import TestSupport
import Testing

/// The PostgreSQL store on a real, throwaway server: it answers as the in-memory reference store
/// for the same writes, a retried batch changes nothing, and a server that is down makes it
/// refuse quickly and recover when the server is back.
@Suite(.serialized) struct PostgresCallLogStoreTests {
    static let logger = testLogger

    /// Runs `body` with a store on a fresh database of a server of its own, then stops both.
    static func withStore(_ body: (PostgresCallLogStore, ThrowawayPostgres) async throws -> Void) async throws {
        try await withTestDatabase { url, server in
            let store = try await PostgresCallLogStore.open(try PostgresLocation(url), logger: logger)
            defer { store.close() }
            try await body(store, server)
        }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func itAnswersAsTheInMemoryStore(seed: UInt64) async throws {
        try await Self.withStore { store, _ in
            try await offPool {
                let reference = InMemoryCallLogStore()
                var random = RandomCalls(rng: SplitMix64(seed: seed))
                var saved: [CallLogRecord] = []
                var nextID: Int64 = 1
                for _ in 0..<40 {
                    let batch = random.batch(saved: &saved, nextID: &nextID, maxCalls: 8)
                    #expect(try store.apply(batch) == reference.apply(batch))
                    if random.chance(0.2) {
                        // A batch retried after a lost commit answer.
                        #expect(try store.apply(batch).missedCalls.isEmpty)
                    }
                    try random.markSomeCallsSeen(in: store, as: reference, maxID: nextID)
                    let session = "s\(Int.random(in: 0..<40, using: &random.rng))"
                    let rid = "\(session)-r\(Int.random(in: 1...3, using: &random.rng))"
                    let url = "https://files/\(nextID)/\(rid)"
                    #expect(try store.attachRecordingURL(url, sessionId: session, rid: rid, startedAt: nil)
                        == reference.attachRecordingURL(url, sessionId: session, rid: rid, startedAt: nil))
                }
                #expect(saved.count > 100)
                #expect(try store.lastCallID() == reference.lastCallID())
                #expect(try store.openCalls() == reference.openCalls())
                #expect(try store.liveCalls() == reference.liveCalls())
                #expect(try store.groups() == reference.groups())
                var nonEmpty = 0
                for _ in 0..<300 {
                    let query = random.query(maxID: nextID)
                    let page = try store.page(query)
                    #expect(page == (try reference.page(query)), "\(query)")
                    nonEmpty += page.records.isEmpty ? 0 : 1
                }
                #expect(nonEmpty > 80)
                for session in (0..<40).map({ "s\($0)" }) {
                    for user in RandomCalls.users {
                        #expect(try store.calls(sessionId: session, visibleTo: user)
                            == reference.calls(sessionId: session, visibleTo: user), "\(session) \(user)")
                    }
                }
                try RandomCalls.expectSameMissedCalls(in: store, as: reference, maxID: nextID)
            }
        }
    }

    @Test func marksMissedCallsAcrossMoreCallsThanOneStepWalks() async throws {
        try await Self.withStore { store, _ in
            try await offPool { try SeenWalkScenario.run(on: store) }
        }
    }

    /// `markCallsSeen` locks a user's count, then marks their missed calls; a save that drops the
    /// user from a call must take the same order, or the two deadlock and one is aborted.
    @Test func droppingAMissedCallWaitsForAMarkInProgress() async throws {
        try await Self.withStore { store, server in
            let call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .cancelled)
            _ = try await offPool { try store.apply([.call(call)]) }
            var withoutCarol = call
            withoutCarol.participants.removeLast()
            let dropping = withoutCarol
            try await PostgresMigratorTests.withClient(server.url(database: "callgate_test") + "?sslmode=disable") { client in
                try await client.withConnection { connection in
                    // A mark of carol's calls, as `markCallsSeen` runs one: her count locked first.
                    try await connection.query("BEGIN", logger: Self.logger)
                    _ = try await connection.query(
                        "SELECT unseen FROM missed_call_counts WHERE uid = 'carol' FOR UPDATE", logger: Self.logger
                    ).collect()
                    let saving = Task { try await offPool { try store.apply([.call(dropping)]) } }
                    try await Task.sleep(for: .milliseconds(500))
                    _ = try await connection.query(
                        "UPDATE missed_calls SET seen_at = now() WHERE call_id = 1 AND uid = 'carol'", logger: Self.logger
                    ).collect()
                    _ = try await connection.query(
                        "UPDATE missed_call_counts SET unseen = 0, revision = revision + 1 WHERE uid = 'carol'", logger: Self.logger
                    ).collect()
                    try await connection.query("COMMIT", logger: Self.logger)
                    let applied = try await saving.value
                    #expect(applied.missedCalls["carol"] == nil, "her missed call was seen when it was dropped")
                }
            }
            #expect(try await offPool { try store.unseenMissedCalls(of: "carol", among: [1]) }.isEmpty)
            #expect(try await offPool { try store.missedCalls(of: "carol") } == MissedCalls(unseen: 0, revision: 2))
        }
    }

    @Test(arguments: OutboxChecks.all.map(\.0))
    func theOutboxRules(check: String) async throws {
        let run = try #require(OutboxChecks.all.first { $0.0 == check }).1
        try await Self.withStore { store, _ in
            try await offPool { try run(store) }
        }
    }

    @Test func aServerThatIsDownIsRefusedQuicklyAndUsedAgainWhenBack() async throws {
        try await Self.withStore { store, server in
            try await offPool {
                try store.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ongoing)]))
                server.shutDown()
                let started = ContinuousClock.now
                #expect(!store.isWritable())
                #expect(throws: PostgresStoreError.self) {
                    try store.apply(TestCalls.writes([TestCalls.direct(2, from: "alice", to: "bob")]))
                }
                #expect(ContinuousClock.now - started < .seconds(10))
                try server.start()
                let deadline = ContinuousClock.now + .seconds(30)
                while !store.isWritable(), ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.2)
                }
                #expect(store.isWritable())
                try store.apply(TestCalls.writes([TestCalls.direct(2, from: "alice", to: "bob")]))
                #expect(try store.lastCallID() == 2)
                #expect(try store.openCalls().map(\.id) == [1])
            }
        }
    }

    /// A query written to a connection that has closed never completes in PostgresNIO 1.33 (the
    /// write's failure drops the query's promise): the store answers its caller at the next
    /// `hangCheck` and goes on with a new pool. A slow query on an open connection is waited for.
    @Test func aQueryOnAClosedConnectionIsGivenUpOnAndASlowOneIsWaitedFor() async throws {
        try await withTestDatabase { url, _ in
            let store = try await PostgresCallLogStore.open(
                try PostgresLocation(url), logger: Self.logger, hangCheck: .milliseconds(500))
            defer { store.close() }
            let slow = try await store.reading("sleeping") { connection in
                try await connection.query("SELECT pg_sleep(1.5)", logger: Self.logger).collect().count
            }
            #expect(slow == 1)

            let started = ContinuousClock.now
            await #expect {
                try await store.reading("querying a closed connection") { connection in
                    try await connection.close()
                    _ = try await connection.query("SELECT 1", logger: Self.logger)
                }
            } throws: { error in
                (error as? PostgresStoreError)?.kind == .unavailable && "\(error)".contains("closed under")
            }
            #expect(ContinuousClock.now - started < .seconds(5))
            try await offPool {
                #expect(store.isWritable())
                try store.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob")]))
                #expect(try store.lastCallID() == 1)
            }
        }
    }
}
