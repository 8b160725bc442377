import CallGateClient
import CallGateProtocol
import Testing

@Suite("Group ringing over real sockets")
struct GroupRingingTests {
    @Test func aGroupCallRingsEveryOtherMemberAndLivesWhileTwoTakePart() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("team", members: ["alice", "bob", "carol", "dave"])
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let dave = try await gateway.device("dave")

        let call = try await alice.initiateCall(to: "team", receiverType: .group)
        #expect(call.receiver == .group(Group(guid: "team", name: "team", membersCount: 4)))
        for member in [bob, carol, dave] {
            #expect(try await member.expectPush() == .incomingCallReceived(call: call))
        }
        await alice.expectSilence()

        let declined = try await carol.rejectCall(call.sessionId, status: .rejected)
        #expect(declined.callStatus == .initiated)
        await alice.expectSilence()

        let accepted = try await bob.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        #expect(try await alice.expectPush() == .outgoingCallAccepted(call: accepted, by: User(uid: "bob", name: "Bob")))

        let daveJoined = try await dave.acceptCall(call.sessionId)
        #expect(daveJoined.callStatus == .ongoing)
        for participant in [alice, bob] {
            #expect(try await participant.expectPush() == .outgoingCallAccepted(call: daveJoined, by: User(uid: "dave", name: "Dave")))
        }

        let bobLeft = try await bob.endCall(call.sessionId)
        #expect(bobLeft.callStatus == .ongoing)
        let daveLeft = try await dave.endCall(call.sessionId)
        #expect(daveLeft.callStatus == .ended)
        let push = try await alice.expectPush()
        guard case .callEndedMessageReceived(let ended, let by, .hungUp) = push else {
            Issue.record("expected onCallEndedMessageReceived, got \(push)")
            return
        }
        #expect(ended.callStatus == .ended)
        #expect(by?.uid == "dave")
    }

    @Test func whenEveryMemberDeclinesTheCallIsRejected() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("pair", members: ["alice", "bob", "carol"])
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let call = try await alice.initiateCall(to: "pair", receiverType: .group)
        _ = try await bob.expectPush()
        _ = try await carol.expectPush()

        _ = try await bob.rejectCall(call.sessionId, status: .rejected)
        let last = try await carol.rejectCall(call.sessionId, status: .rejected)
        #expect(last.callStatus == .rejected)
        #expect(try await alice.expectPush() == .outgoingCallRejected(call: last, by: User(uid: "carol", name: "Carol")))
    }

    @Test func unknownGroupsAndStrangersAreRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("club", members: ["bob", "carol"])
        let alice = try await gateway.device("alice")
        await expectError(.groupNotFound) { try await alice.initiateCall(to: "nosuchgroup", receiverType: .group) }
        await expectError(.groupNotFound) { try await alice.initiateCall(to: "club", receiverType: .group) }
    }
}
