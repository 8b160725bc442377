import CallGateClient
import CallGateKit
import CallGateProtocol
import Foundation
import Testing

@Suite("Hold over real sockets")
struct HoldFlowTests {
    /// bob puts alice's call on hold and takes it up again: alice hears both, the participant
    /// list shows the hold while it lasts, and the call log and the timeline keep it.
    @Test func aHoldIsToldListedAndLogged() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        let bobUser = User(uid: "bob", name: "Bob")
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()

        let held = try await bob.holdCall(call.sessionId)
        #expect(held.participants.first { $0.uid == "bob" }?.onHold == true)
        #expect(held.participants.first { $0.uid == "alice" }?.onHold == nil)
        #expect(try await alice.expectPush() == .callHeld(sessionId: call.sessionId, user: bobUser))
        await expectError(.badRequest) { try await bob.holdCall(call.sessionId) }
        await expectError(.notParticipant) { try await gateway.device("carol").holdCall(call.sessionId) }
        try await Task.sleep(for: .milliseconds(1100))
        let resumed = try await bob.resumeCall(call.sessionId)
        #expect(resumed.participants.allSatisfy { $0.onHold == nil })
        #expect(try await alice.expectPush() == .callResumed(sessionId: call.sessionId, user: bobUser))
        await expectError(.badRequest) { try await bob.resumeCall(call.sessionId) }
        _ = try await alice.endCall(call.sessionId)

        let api = CallLogAPI(baseURL: URL(string: "http://127.0.0.1:\(gateway.port)")!, token: try await gateway.token("alice"))
        let logged = try #require(try await api.calls(sessionId: call.sessionId).data.first)
        let bobHeld = try #require(logged.participants.first { $0.uid == "bob" }?.heldDuration)
        #expect((1...3).contains(bobHeld))
        #expect(logged.participants.first { $0.uid == "alice" }?.heldDuration == nil)
        let steps = try #require(try await api.timeline(sessionId: call.sessionId).data.first).steps
        #expect(steps.filter { $0.step == .held || $0.step == .resumed }.map(\.uid) == ["bob", "bob"])
    }
}
