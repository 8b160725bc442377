import CallGateClient
import CallGateProtocol
import Testing
import TestSupport

/// Call waiting across nodes: bob's call with alice lives on node a, carol's waiting call on node
/// c, bob's device on node b. Taking carol's call has node a put alice's call on hold for bob
/// first; taking alice's call back claims bob for node a again.
@Suite(.serialized) struct ClusterCallWaitingTests {
    @Test func aWaitingCallOfAnotherNodeHoldsTheFirstCallWhereItLives() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let carol = try await cluster.device("carol", on: "c")
        let first = try await alice.establishCall(with: bob, uid: "bob")
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: first.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: first.sessionId).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()

        let waiting = try await carol.initiateCall(to: "bob", callWaiting: true)
        #expect(waiting.callStatus == .initiated, "bob, busy on node a, is rung")
        #expect(try await bob.expectPush() == .incomingCallReceived(call: waiting))
        let taken = try await bob.acceptCall(waiting.sessionId)
        #expect(taken.callStatus == .ongoing)
        let held = Push.callHeld(sessionId: first.sessionId, user: User(uid: "bob", name: "bob name"))
        #expect(try await alice.expectPush() == held)
        #expect(try await bob.expectPush() == held)
        await expectError(.callInProgress) { try await bob.resumeCall(first.sessionId) }

        _ = try await carol.endCall(waiting.sessionId)
        _ = try await bob.expectPush()
        let back = try await bob.resumeCall(first.sessionId)
        #expect(back.participants.first { $0.uid == "bob" }?.onHold == nil)
        #expect(try await carol.initiateCall(to: "bob").callStatus == .busy, "node a's call holds bob again")
    }
}
