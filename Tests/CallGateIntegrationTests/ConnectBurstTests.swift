import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// A burst of connects on the PostgreSQL store, as after a node's death or a deploy: each reads
/// its user's missed-call count from the database. Those reads block threads of their own
/// (`StoreReads`); on Dispatch's global threads they starved the Swift tasks that finish the
/// PostgreSQL queries, and the connects timed out (4001 after 10 s). A burst's counts are read in
/// batches, one read at a time, and each connect gets its own user's count.
@Suite("A burst of connects on PostgreSQL", .serialized)
struct ConnectBurstTests {
    @Test func twoHundredConnectsAtOnceAreAllAnsweredWithTheirOwnCounts() async throws {
        let gateway = try await TestGateway(store: .postgres)
        defer { gateway.shutdown() }
        // burst<i> missed i % 3 calls: ten callers rang them and hung up (each under its limit
        // of calls per minute).
        var callers: [CallGateClient] = []
        for index in 0..<10 {
            callers.append(try await gateway.device("caller\(index)"))
        }
        for index in 0..<200 {
            for _ in 0..<(index % 3) {
                let caller = callers[index % callers.count]
                let call = try await caller.initiateCall(to: "burst\(index)")
                _ = try await caller.rejectCall(call.sessionId, status: .cancelled)
            }
        }
        var sockets: [CallGateClient] = []
        for _ in 0..<200 {
            sockets.append(try await gateway.socket())
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in sockets.indices {
                group.addTask { try await gateway.token("burst\(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let started = ContinuousClock.now
        let answered = await withTaskGroup(of: (String, Int?)?.self) { group in
            for (socket, token) in zip(sockets, tokens) {
                group.addTask { (try? await socket.connect(token: token)).map { ($0.user.uid, $0.unseenMissedCalls) } }
            }
            return await group.reduce(into: [String: Int?]()) { counts, answer in
                if let (uid, unseen) = answer {
                    counts[uid] = unseen
                }
            }
        }
        #expect(answered.count == 200, "\(200 - answered.count) connects were not answered")
        for (uid, unseen) in answered {
            let index = Int(uid.dropFirst("burst".count)) ?? -1
            #expect(unseen == index % 3, "\(uid)")
        }
        #expect(ContinuousClock.now - started < .seconds(9), "before the 10 s connect deadline closes any")
        let metrics = try await gateway.scrape()
        #expect(metrics[#"callgate_auth_failures_total{reason="connect_timeout"}"#] == 0)
    }

    /// A count the store cannot read in time: the connect is answered without it after the
    /// read's timeout, and the device hears the count once the read answers.
    @Test func aConnectWhoseCountCannotBeReadGoesOnWithoutItAndHearsItLater() async throws {
        let gateway = try await TestGateway(store: .postgres)
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let call = try await alice.initiateCall(to: "bob")
        _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
        // Once the notice's quiet interval ended, this node keeps no count of bob's.
        try await Task.sleep(for: .seconds(2))

        let lock = try TableLockHolder(database: gateway.database, table: "missed_call_counts", mode: "ACCESS EXCLUSIVE")
        let bob = try await gateway.socket()
        let started = ContinuousClock.now
        let result = try await bob.connect(token: try await gateway.token("bob"))
        #expect(ContinuousClock.now - started < .seconds(3), "the connect waited \(ContinuousClock.now - started)")
        #expect(result.unseenMissedCalls == nil, "no count was known")
        lock.release()
        #expect(try await bob.expectMissedCalls().unseen == 1)
    }
}
