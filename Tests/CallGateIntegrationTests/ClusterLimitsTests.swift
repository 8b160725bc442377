import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// The per-user limits hold on the nodes together, not per node: a user's devices
/// (`--max-devices-per-user`) and the calls and meetings they start per minute
/// (`--max-calls-per-minute`, a new meeting counting as a start) are counted in Redis.
@Suite(.serialized) struct ClusterLimitsTests {
    @Test func aUsersDevicesAreCappedOnTheNodesTogether() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--max-devices-per-user", "2"])
        defer { cluster.stop() }
        // Each node counts the other's devices once a heartbeat (every second) showed it.
        try await Task.sleep(for: .milliseconds(1500))
        let first = try await cluster.device("bob", on: "a")
        _ = try await cluster.device("bob", on: "b")
        for node in ["a", "b"] {
            let port = try #require(cluster.nodes[node]).port
            let third = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: cluster.loop)
            let token = try await cluster.tokens.mint(user: User(uid: "bob", name: "bob name"), ttl: 600).token
            await expectError(.tooManyDevices) { try await third.connect(token: token) }
            #expect(try await third.expectClose() == CloseCode.tooManyDevices, "on node \(node)")
        }
        _ = try await first.dropped()
        #expect(try await eventually(within: 5) { (try? await cluster.device("bob", on: "b")) != nil },
                "a slot that a device left is free again")
    }

    @Test func callsAndMeetingsPerMinuteAreCountedOnTheNodesTogether() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--max-calls-per-minute", "3"])
        defer { cluster.stop() }
        let onA = try await cluster.device("alice", on: "a")
        let onB = try await cluster.device("alice", on: "b")
        for (index, device) in [onA, onB].enumerated() {
            let call = try await device.initiateCall(to: "nobody\(index)", timeout: 60)
            _ = try await device.rejectCall(call.sessionId, status: .cancelled)
        }
        // A meeting started on b is the third start.
        let grant = try await onB.generateToken(sessionId: "meet-\(UUID().uuidString.prefix(8))")
        _ = try await onB.joinSession(callToken: grant.callToken)
        await expectError(.rateLimited) { try await onA.initiateCall(to: "carol", timeout: 60) }
        let another = try await onA.generateToken(sessionId: "meet-\(UUID().uuidString.prefix(8))")
        await expectError(.rateLimited) { try await onA.joinSession(callToken: another.callToken) }
        await expectError(.rateLimited) { try await onB.initiateCall(to: "carol", timeout: 60) }

        // A refused op spends nothing: carol's budget is whole after a call to herself.
        let carol = try await cluster.device("carol", on: "a")
        await expectError(.callingSelf) { try await carol.initiateCall(to: "carol", timeout: 60) }
        let starts = try cluster.redis.command("ZCARD", "cg:{u:carol}:starts")
        #expect(starts == "0", "the start of a refused call is given back")
    }
}
