import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Every write about a call is fenced by its owner's epoch: a node whose call another node took
/// over (a survivor, or a later run of the same node id) writes nothing more of it (row, member
/// rows, webhook messages), says nothing more of it, lets it go at once and counts it; and a
/// node back from a freeze checks its calls under its takeover lock, so that it cannot read the
/// database while a survivor is in the middle of taking them over.
@Suite(.serialized) struct ClusterFencingTests {
    /// Node `a` of a one-node cluster with webhooks on (an endpoint nobody answers: the outbox is
    /// what is checked).
    private func cluster() async throws -> RoutingCluster {
        try await RoutingCluster(["a"], [
            "--webhook-allow-private-networks", "--webhook-url", "http://127.0.0.1:9/hooks",
            "--webhook-secret", "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
        ])
    }

    /// Alice and bob on node `a`, in an answered call whose row is durable.
    private func answeredCall(on cluster: RoutingCluster) async throws -> (CallGateClient, CallGateClient, Call) {
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "a")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        #expect(try await eventually(within: 5) {
            try await databaseRows(cluster.database, "SELECT status FROM calls WHERE session_id = '\(call.sessionId)'") == ["ongoing"]
        })
        return (alice, bob, call)
    }

    /// The call's status, owner and epoch, its member rows and its webhook messages.
    private func stored(_ call: Call, in cluster: RoutingCluster) async throws -> [String] {
        try await databaseRows(cluster.database, """
            SELECT c.status, c.owner_node, c.owner_epoch,
                   (SELECT count(*) FROM call_members m WHERE m.call_id = c.id),
                   (SELECT count(*) FROM webhook_messages w WHERE w.session_id = c.session_id)
            FROM calls c WHERE c.session_id = '\(call.sessionId)'
            """)
    }

    /// The call is taken over behind node a's back, as a survivor's takeover does (`b`) or as a
    /// later run of node a does taking it back (`a`, the epoch raised alone). Node a's end of
    /// the call is then fenced out: the log keeps what the new owner has, bob hears nothing,
    /// alice is told to try again, and node a runs the call no more.
    @Test(arguments: ["b", "a"]) func aWriteFencedOutLeavesTheLogAsItIsAndReleasesNothing(newOwner: String) async throws {
        let cluster = try await cluster()
        defer { cluster.stop() }
        let (alice, bob, call) = try await answeredCall(on: cluster)
        let before = try await stored(call, in: cluster)
        #expect(before.first?.hasPrefix("ongoing|a|0|2|") == true, "\(before)")
        _ = try await databaseRows(cluster.database, """
            UPDATE calls SET owner_node = '\(newOwner)', owner_epoch = owner_epoch + 1 WHERE session_id = '\(call.sessionId)'
            """)

        await expectError(.clusterUnavailable) { try await alice.endCall(call.sessionId) }
        await bob.expectSilence(for: .seconds(1))
        let messages = before.first?.split(separator: "|").last.map(String.init) ?? "?"
        #expect(try await stored(call, in: cluster) == ["ongoing|\(newOwner)|1|2|\(messages)"])
        #expect(try await cluster.scrape("a")["callgate_cluster_writes_fenced_total"] == 1)
        do {
            _ = try await bob.endCall(call.sessionId)
            Issue.record("node a let the call go: bob's end cannot succeed there")
        } catch {}
        #expect(try await stored(call, in: cluster) == ["ongoing|\(newOwner)|1|2|\(messages)"])
    }

    /// Node a is frozen past its lease while a survivor holds its takeover lock. Back, it
    /// checks its calls only once the survivor's takeover committed and freed the lock, so it
    /// lets the call go from that check, and no write of it is ever fenced out.
    @Test func aNodeBackFromAFreezeChecksItsCallsUnderItsTakeoverLock() async throws {
        let cluster = try await cluster()
        defer { cluster.stop() }
        let (alice, _, call) = try await answeredCall(on: cluster)
        let lock = "cg:{cluster}:takeover:a"
        _ = try cluster.redis.command("SET", lock, "b", "PX", "60000")
        let node = try #require(cluster.nodes["a"])
        try await node.freeze()
        try await Task.sleep(for: .seconds(4))
        node.thaw()
        // Back, node a waits for the lock, running none of its calls; the survivor's takeover
        // commits meanwhile, then frees the lock.
        try await Task.sleep(for: .seconds(2))
        await expectError(.clusterUnavailable) { try await alice.endCall(call.sessionId) }
        _ = try await databaseRows(cluster.database, """
            UPDATE calls SET owner_node = 'b', owner_epoch = owner_epoch + 1 WHERE session_id = '\(call.sessionId)'
            """)
        _ = try cluster.redis.command("DEL", lock)
        #expect(try await eventually(within: 5) {
            do {
                _ = try await alice.endCall(call.sessionId)
                Issue.record("node a let the call go: alice's end cannot succeed there")
                return true
            } catch let error as ErrorBody {
                return error.code != .clusterUnavailable
            }
        }, "node a checked its calls once the lock was free")
        #expect(try await cluster.scrape("a")["callgate_cluster_writes_fenced_total"] == 0, "the check let the call go")
        #expect(try await stored(call, in: cluster).first?.hasPrefix("ongoing|b|1|2|") == true)
    }
}
