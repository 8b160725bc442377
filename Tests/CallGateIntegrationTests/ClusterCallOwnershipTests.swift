import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Testing
import TestSupport

/// Calls made on two nodes of a cluster get call log ids no other node gives and are recorded
/// as their node's; a node killed and restarted has its open calls taken over once (by itself
/// or a survivor) and takes no one else's.
@Suite(.serialized) struct ClusterCallOwnershipTests {
    static let secret = "cluster-ownership-secret"

    private func node(_ id: String, redis: ThrowawayRedis, database: String) throws -> GatewayProcess {
        try .clusterNode(
            id, redis: redis, database: database, secret: Self.secret,
            ["--admin-key", "cluster-admin", "--max-calls-per-minute", "1000"])
    }

    @Test func idsAreUniqueAcrossNodesAndANodeTakesBackOnlyItsOwnCalls() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        var a = try node("a", redis: redis, database: database)
        let b = try node("b", redis: redis, database: database)
        defer { a.kill(); b.kill() }
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        func client(_ uid: String, on node: GatewayProcess) async throws -> (CallGateClient, ConnectResult) {
            try await node.connect(uid, tokens: tokens, loop: loop)
        }
        let (alice, _) = try await client("alice", on: a)
        let (carol, _) = try await client("carol", on: b)

        var sessions: [String: String] = [:]
        for _ in 0..<5 {
            for (caller, name) in [(alice, "a"), (carol, "b")] {
                let call = try await caller.initiateCall(to: "nobody-online")
                sessions[call.sessionId] = name
                _ = try await caller.rejectCall(call.sessionId, status: .cancelled)
            }
        }
        let ringingOnA = try await alice.initiateCall(to: "bob", timeout: 60)
        let ringingOnB = try await carol.initiateCall(to: "dave", timeout: 60)
        sessions[ringingOnA.sessionId] = "a"
        sessions[ringingOnB.sessionId] = "b"

        let rows = try await databaseRows(database, "SELECT id, session_id, owner_node, owner_epoch FROM calls ORDER BY id")
        #expect(rows.count == 12, "twelve calls, twelve rows: no id given twice\n\(rows)")
        for row in rows {
            let fields = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            #expect(sessions[fields[1]] == fields[2], "call \(fields[1]) is recorded as its node's: \(row)")
        }

        a.kill()
        a = try node("a", redis: redis, database: database)
        let after = try await databaseRows(database, """
            SELECT session_id, owner_node, owner_epoch FROM calls WHERE status = 'initiated' ORDER BY session_id
            """)
        // Node a's call was taken once, under epoch 1: by a restarting, or by b while a was down.
        #expect(after.contains("\(ringingOnB.sessionId)|b|0"), "\(after)")
        #expect(
            after.contains("\(ringingOnA.sessionId)|a|1") != after.contains("\(ringingOnA.sessionId)|b|1"), "\(after)")
        #expect(after.count == 2)
        let (_, resumed) = try await client("alice", on: a)
        #expect(resumed.activeCalls.map(\.sessionId) == [ringingOnA.sessionId], "alice still has her ringing call")
    }
}
