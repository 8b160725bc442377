import CallGateClient
import CallGateProtocol
import Testing

/// Call waiting over real sockets: bob talks with alice when carol rings him with call waiting
/// allowed; bob's tablet takes carol's call, which puts alice's on hold, and bob takes alice's
/// call back once carol's is over.
@Suite("Call waiting over real sockets")
struct CallWaitingFlowTests {
    @Test func takingAWaitingCallHoldsTheFirstAndResumingTakesItBack() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let bobTablet = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let first = try await alice.establishCall(with: bob, uid: "bob")
        _ = try await bobTablet.expectPush()
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: first.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: first.sessionId).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()

        let refused = try await carol.initiateCall(to: "bob")
        #expect(refused.callStatus == .busy, "without call waiting bob is busy")
        _ = try await carol.expectPush()
        let waiting = try await carol.initiateCall(to: "bob", callWaiting: true)
        #expect(waiting.callStatus == .initiated && waiting.callWaiting == true)
        #expect(try await bob.expectPush() == .incomingCallReceived(call: waiting))
        var heard = try await bobTablet.expectPush()
        while heard.event != .onIncomingCallReceived {  // the session's pushes of bob joining it
            heard = try await bobTablet.expectPush()
        }
        #expect(heard == .incomingCallReceived(call: waiting))

        let taken = try await bobTablet.acceptCall(waiting.sessionId)
        #expect(taken.callStatus == .ongoing)
        let held = Push.callHeld(sessionId: first.sessionId, user: User(uid: "bob", name: "Bob"))
        #expect(try await alice.expectPush() == held)
        #expect(try await bob.expectPush() == held)
        #expect(try await bobTablet.expectPush() == held)
        _ = try await carol.expectPush()
        await expectError(.callInProgress) { try await bob.resumeCall(first.sessionId) }

        _ = try await carol.endCall(waiting.sessionId)
        let back = try await bob.resumeCall(first.sessionId)
        #expect(back.participants.first { $0.uid == "bob" }?.onHold == nil)
        #expect(try await alice.expectPush() == .callResumed(
            sessionId: first.sessionId, user: User(uid: "bob", name: "Bob")))
        let again = try await carol.initiateCall(to: "bob")
        #expect(again.callStatus == .busy, "alice's call engages bob again")
    }
}
