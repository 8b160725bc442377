import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// The active-call index holds under faults: an entry whose write failed while its node's Redis
/// link was down is written again once the link is back, so a device that connects later is
/// never told of a call that already ended.
@Suite(.serialized) struct ClusterActiveCallIndexTests {
    @Test func aCallThatEndedWhileItsNodesRedisLinkWasDownIsNotListedAfterwards() async throws {
        let (redis, urls) = try ClusterPresenceTests.redisWithUserPerNode()
        let cluster = try await RoutingCluster(["a", "b"], [], redis: redis, redisURLs: urls)
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let (_, rung) = try await cluster.connect("bob", on: "b")
        #expect(rung.activeCalls.map(\.sessionId) == [call.sessionId], "node a listed the ring for bob")

        // Alice cancels while the calls table is locked, so the cancel's commit waits; node a's
        // Redis link is cut before it lands, so the deletion of bob's entry that follows the
        // commit cannot be sent then.
        let lock = try TableLockHolder(database: cluster.database, table: "calls")
        let cancel = Task { try await alice.rejectCall(call.sessionId, status: .cancelled) }
        try await Task.sleep(for: .milliseconds(300))
        try await ClusterPresenceTests.cut("node-a", of: redis, for: .milliseconds(800)) {
            try await Task.sleep(for: .milliseconds(200))
            lock.release()
        }
        _ = try await cancel.value
        #expect(try await eventually(within: 10) { try await cluster.isReady("a") })
        #expect(try await eventually(within: 10) {
            let (probe, result) = try await cluster.connect("bob", on: "b")
            await probe.close()
            return result.activeCalls.isEmpty
        }, "a device of bob that connects once node a is back hears of no call")
    }
}
