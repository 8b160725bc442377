import CallGateClient
import CallGateKit
import CallGateProtocol
import Foundation
import Testing

@Suite("Invites over real sockets")
struct InviteFlowTests {
    /// alice calls bob; bob invites carol (two devices) and dave, who is in another answered
    /// call; carol answers on one device, joins the session, and the log lists all four.
    @Test func aParticipantRingsSomeoneIntoTheCall() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let carolTablet = try await gateway.device("carol")
        let dave = try await gateway.device("dave")
        let erin = try await gateway.device("erin")
        _ = try await dave.establishCall(with: erin, uid: "erin")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        let bobUser = User(uid: "bob", name: "Bob")

        await expectError(.notParticipant) { try await carol.inviteToCall(call.sessionId, receiverIds: ["dave"]) }
        let invited = try await bob.inviteToCall(call.sessionId, receiverIds: ["carol", "dave"])
        #expect(invited.rung == ["carol"] && invited.busy == ["dave"])
        #expect(invited.call.callStatus == .ongoing)
        for device in [carol, carolTablet] {
            #expect(try await device.expectPush() == .incomingCallReceived(call: invited.call, invitedBy: bobUser))
        }
        await dave.expectSilence()
        await expectError(.badRequest) { try await bob.inviteToCall(call.sessionId, receiverIds: ["carol"]) }

        let answered = try await carol.acceptCall(call.sessionId)
        #expect(answered.callStatus == .ongoing)
        #expect(try await alice.expectPush() == .outgoingCallAccepted(call: answered, by: User(uid: "carol", name: "Carol")))
        #expect(try await bob.expectPush() == .outgoingCallAccepted(call: answered, by: User(uid: "carol", name: "Carol")))
        guard case .incomingCallCanceled(_, .answeredElsewhere) = try await carolTablet.expectPush() else {
            Issue.record("carol's tablet should stop ringing")
            return
        }
        for device in [alice, bob, carol] {
            _ = try await device.joinSession(callToken: try await device.generateToken(sessionId: call.sessionId).callToken)
        }
        _ = try await alice.endCall(call.sessionId)
        _ = try await bob.endCall(call.sessionId)

        let api = CallLogAPI(baseURL: URL(string: "http://127.0.0.1:\(gateway.port)")!, token: try await gateway.token("carol"))
        let logged = try #require(try await api.calls(sessionId: call.sessionId).data.first)
        #expect(logged.callStatus == .ended)
        #expect(logged.participants.map(\.uid) == ["alice", "bob", "carol", "dave"])
        #expect(logged.participants.map(\.state) == [.joined, .joined, .joined, .missed])
    }
}
