import CallGateCore
import CallGateProtocol
@testable import CallGateStorePostgres
import Logging
import PostgresNIO
import StoreTestSupport
import TestSupport
import Testing

/// Cluster mode's share of the PostgreSQL store on a real, throwaway server: call id blocks that
/// never overlap nor fall at or below the last call id saved, a dead node's open calls taken over
/// once under raised epochs, the upgrade to schema version 3, and a copy that starts the blocks
/// past the ids it carried over.
@Suite(.serialized) struct PostgresClusterTests {
    static let logger = testLogger

    /// Makes `node` the owner of calls `ids`, as the node that created them.
    static func own(_ ids: [Int64], by node: String, in store: PostgresCallLogStore) async throws {
        try await store.transaction("setting call owners") { connection in
            _ = try await connection.query(
                "UPDATE calls SET owner_node = \(node) WHERE id = ANY (\(ids)::bigint[])", logger: Self.logger)
        }
    }

    @Test func blocksFollowEachOtherAndSkipTheIDsAGatewayWithoutClusterModeSaved() async throws {
        try await PostgresCallLogStoreTests.withStore { store, _ in
            try await offPool {
                #expect(try store.reserveCallIDs() == 1...64)
                #expect(try store.reserveCallIDs() == 65...128)
                try store.apply(TestCalls.writes([TestCalls.direct(1000, from: "alice", to: "bob")]))
                #expect(try store.reserveCallIDs() == 1001...1064)
                #expect(try store.reserveCallIDs() == 1065...1128)
                try store.apply(TestCalls.writes([TestCalls.direct(1129, from: "alice", to: "bob")]))
                #expect(try store.reserveCallIDs() == 1130...1193)
            }
        }
    }

    /// Six nodes reserve at once while a gateway without cluster mode keeps raising the last call
    /// id, so some reservations move the sequence while others draw from it.
    @Test func concurrentReservationsNeverOverlap() async throws {
        try await PostgresCallLogStoreTests.withStore { store, _ in
            try await offPool { try store.apply(TestCalls.writes([TestCalls.direct(10_000, from: "alice", to: "bob")])) }
            let blocks = try await withThrowingTaskGroup(of: [ClosedRange<Int64>].self) { group in
                for _ in 0..<6 {
                    group.addTask { try await offPool { try (0..<12).map { _ in try store.reserveCallIDs() } } }
                }
                group.addTask {
                    try await offPool { () throws -> [ClosedRange<Int64>] in
                        for id in stride(from: Int64(11_000), through: 15_000, by: 1_000) {
                            try store.apply(TestCalls.writes([TestCalls.direct(id, from: "alice", to: "bob")]))
                        }
                        return []
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let sorted = blocks.sorted { $0.lowerBound < $1.lowerBound }
            #expect(sorted.count == 72)
            #expect(sorted.allSatisfy { $0.count == 64 && $0.lowerBound > 10_000 })
            #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        }
    }

    @Test func aSurvivorTakesOverTheOpenCallsOfADeadNodeUnderNewEpochs() async throws {
        try await PostgresCallLogStoreTests.withStore { store, _ in
            try await offPool {
                try store.apply(TestCalls.writes([
                    TestCalls.direct(1, from: "alice", to: "bob", status: .ongoing, rids: ["r1"]),
                    TestCalls.direct(2, from: "alice", to: "carol", status: .initiated),
                    TestCalls.direct(3, from: "alice", to: "bob", status: .ended),
                    TestCalls.direct(4, from: "bob", to: "carol", status: .ongoing),
                    TestCalls.direct(5, from: "carol", to: "alice", status: .ongoing),
                ]))
                #expect(try store.attachRecordingURL("https://files/r1", sessionId: "s1", rid: "r1", startedAt: nil) == .attached)
            }
            try await Self.own([1, 2, 3], by: "node-a", in: store)
            try await Self.own([4], by: "node-b", in: store)
            try await offPool {
                let open = try store.openCalls()
                let taken = try store.takeOverOpenCalls(of: "node-a", by: "node-b")
                #expect(taken.map(\.record) == open.filter { $0.id <= 2 })
                #expect(taken.map(\.epoch) == [1, 1])
                #expect(taken.first?.record.recordings.first?.recordingUrl == "https://files/r1")
                #expect(try store.takeOverOpenCalls(of: "node-a", by: "node-c").isEmpty)

                let back = try store.takeOverOpenCalls(of: "node-b", by: "node-b")
                #expect(back.map(\.record.id) == [1, 2, 4])
                #expect(back.map(\.epoch) == [2, 2, 1])
                #expect(try store.callIDsOwnedElsewhere(than: "node-b", among: [1, 2, 3, 4]) == [3])
                #expect(try store.callIDsOwnedElsewhere(than: "node-a", among: [1, 2, 3, 4, 5, 99]) == [1, 2, 4])
                #expect(try store.callIDsOwnedElsewhere(than: "node-b", among: []).isEmpty)
            }
        }
    }

    @Test func survivorsTakingOverAtOnceTakeEachCallOnce() async throws {
        try await PostgresCallLogStoreTests.withStore { store, _ in
            let ids = Array(Int64(1)...40)
            try await offPool {
                try store.apply(TestCalls.writes(ids.map { TestCalls.direct($0, from: "alice", to: "bob", status: .ongoing) }))
            }
            try await Self.own(ids, by: "node-a", in: store)
            let taken = try await withThrowingTaskGroup(of: [OwnedCall].self) { group in
                for survivor in ["node-b", "node-c", "node-d"] {
                    group.addTask { try await offPool { try store.takeOverOpenCalls(of: "node-a", by: survivor) } }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(taken.map(\.record.id).sorted() == ids)
            #expect(taken.allSatisfy { $0.epoch == 1 })
        }
    }

    @Test(arguments: [(Int64(12), Int64(13)), (3, 10)])
    func version3LeavesSavedCallsUnownedAndStartsCallIDsPastThem(lastCallID: Int64, firstID: Int64) async throws {
        try await PostgresMigratorTests.withDatabase { client, _ in
            #expect(try await PostgresMigrator.migrate(client, through: 2, logger: Self.logger) == [1, 2])
            try await client.query("""
                INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, initiated_at, has_recording, record)
                VALUES (5, 's5', 'call', 'audio', 'ongoing', 'alice', to_timestamp(105), false, '{}'),
                       (9, 's9', 'call', 'audio', 'ended', 'alice', to_timestamp(109), false, '{}')
                """, logger: Self.logger)
            try await client.query("UPDATE store_state SET last_call_id = \(lastCallID)", logger: Self.logger)

            #expect(try await PostgresMigrator.migrate(client, through: 3, logger: Self.logger) == [3])
            let unowned = try await PostgresMigratorTests.integers(client, """
                SELECT count(*) FROM calls WHERE owner_node IS NULL AND owner_epoch = 0
                UNION ALL SELECT count(*) FROM pg_indexes WHERE indexname = 'calls_open_by_owner'
                """)
            let drawn = try await PostgresMigratorTests.integers(
                client, "SELECT nextval('call_ids') FROM generate_series(1, 2)")
            #expect(unowned == [2, 1])
            #expect(drawn == [firstID, firstID + 64])
        }
    }

    @Test func aCopyStartsTheCallIDBlocksPastTheIDsItCarriedOver() async throws {
        try await withTestDatabase { url, _ in
            let location = try PostgresLocation(url)
            try await PostgresCallLogStore.migrate(location, logger: Self.logger)
            let rows = """
                [{"id": 7, "session_id": "s7", "category": "call", "call_type": "audio", "status": "ended",
                  "initiator_uid": "alice", "receiver_type": null, "receiver_id": null, "initiated_at": 107,
                  "started_at": null, "ended_at": 207, "has_recording": 0, "record": "{}", "participants": "[]"}]
                """
            _ = try await PostgresImport.copy(
                into: location, logger: Self.logger, expected: [.calls: 1], lastIDs: [.calls: 50]
            ) { copy in
                try await copy.insert(.calls, json: rows)
            }
            let store = try await PostgresCallLogStore.open(location, logger: Self.logger)
            defer { store.close() }
            let next = try await store.reading("drawing a call id") { connection in
                try await connection.query("SELECT nextval('call_ids')", logger: Self.logger).collect().first?.decode(Int64.self)
            }
            #expect(next == 51)
        }
    }

    @Test func aNodeThatLostACallCannotWriteItBack() async throws {
        try await withTestDatabase { url, _ in
            let location = try PostgresLocation(url)
            let lost = try await PostgresCallLogStore.open(location, logger: Self.logger, owner: "node-a")
            defer { lost.close() }
            let survivor = try await PostgresCallLogStore.open(location, logger: Self.logger, owner: "node-b")
            defer { survivor.close() }
            try await offPool {
                try lost.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ongoing)]))
                #expect(try survivor.takeOverOpenCalls(of: "node-a", by: "node-b").map(\.record.id) == [1])
                try lost.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .cancelled)]))
                #expect(try survivor.openCalls().map(\.callStatus) == [.ongoing], "node-a's late write changed nothing")
                try survivor.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ended)]))
                #expect(try survivor.openCalls().isEmpty)
                #expect(try survivor.calls(sessionId: "s1", visibleTo: "alice").map(\.callStatus) == [.ended])
            }
        }
    }

    /// Every write of a call is fenced by the epoch its owner holds it under: the writes of a
    /// node whose call was taken over (by a survivor, or by a later run of the same node id) are
    /// left out whole (row, member rows, webhook messages of its session) and reported.
    @Test func aWriteOfACallTakenOverIsFencedOutWithItsMemberRowsAndWebhooks() async throws {
        try await withTestDatabase { url, _ in
            let location = try PostgresLocation(url)
            let lost = try await PostgresCallLogStore.open(location, logger: Self.logger, owner: "node-a")
            defer { lost.close() }
            let survivor = try await PostgresCallLogStore.open(location, logger: Self.logger, owner: "node-b")
            defer { survivor.close() }
            let restarted = try await PostgresCallLogStore.open(location, logger: Self.logger, owner: "node-a")
            defer { restarted.close() }
            try await offPool {
                try lost.putWebhookEndpoint(WebhookEndpoint(
                    id: "hook", url: "http://127.0.0.1:1/hook", secrets: [WebhookSecret(value: "whsec_x")], eventTypes: nil,
                    enabled: true, createdAt: 1))
                #expect(try lost.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ongoing)])).fenced.isEmpty)
                #expect(try survivor.takeOverOpenCalls(of: "node-a", by: "node-b").map(\.epoch) == [1])
                let pending = try survivor.webhookBacklogs().values.reduce(0) { $0 + $1.pending }

                let elsewhere = TestCalls.direct(1, from: "alice", to: "carol", status: .ended)
                let ended = StoreWrite.webhook(WebhookMessage(
                    id: "msg_end", timestamp: 1, event: WebhookEvent(type: .callEnded, data: WebhookData(sessionId: "s1"))))
                #expect(try lost.apply([.call(elsewhere), ended]).fenced == [1])
                #expect(try survivor.openCalls().map(\.callStatus) == [.ongoing])
                #expect(try survivor.calls(sessionId: "s1", visibleTo: "carol").isEmpty, "no member row was written")
                #expect(try survivor.webhookBacklogs().values.reduce(0) { $0 + $1.pending } == pending, "no webhook message was enqueued")

                #expect(try restarted.takeOverOpenCalls(of: "node-b", by: "node-a").map(\.epoch) == [2])
                #expect(try survivor.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ended)])).fenced == [1])
                #expect(try lost.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ended)])).fenced == [1],
                        "the same node id under an older epoch is fenced out too")
                #expect(try restarted.apply(TestCalls.writes([TestCalls.direct(1, from: "alice", to: "bob", status: .ended)])).fenced.isEmpty)
                #expect(try restarted.calls(sessionId: "s1", visibleTo: "bob").map(\.callStatus) == [.ended])
            }
        }
    }
}
