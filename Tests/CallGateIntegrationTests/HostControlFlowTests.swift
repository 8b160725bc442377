import CallGateClient
import CallGateProtocol
import Testing

@Suite("Host controls and session events over real sockets")
struct HostControlFlowTests {
    /// alice starts a meeting (her phone, connected too, hears it but did not join), bob and carol
    /// join it: bob raises a hand, alice mutes and then removes carol, who cannot come back;
    /// nobody but alice may do either.
    @Test func aHostRunsAMeeting() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let alicePhone = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let room = "meet:standup"
        let aliceUser = User(uid: "alice", name: "Alice")
        let bobUser = User(uid: "bob", name: "Bob")
        let carolUser = User(uid: "carol", name: "Carol")
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: room).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: room).callToken)
        let carolToken = try await carol.generateToken(sessionId: room)
        _ = try await carol.joinSession(callToken: carolToken.callToken)
        for _ in 0..<4 {
            _ = try await alice.expectPush()
        }
        for _ in 0..<6 {
            _ = try await alicePhone.expectPush()
        }
        for _ in 0..<2 {
            _ = try await bob.expectPush()
        }

        let raised = try await bob.sendSessionEvent(room, type: "raiseHand", data: .object(["raised": .bool(true)]))
        #expect(raised == SessionEventResult(sessionId: room, type: "raiseHand", participants: 3))
        let hand = Push.sessionEvent(sessionId: room, type: "raiseHand", data: .object(["raised": .bool(true)]), user: bobUser)
        #expect(try await alice.expectPush() == hand)
        #expect(try await carol.expectPush() == hand)
        #expect(try await alicePhone.expectPush() == hand)
        await expectError(.notParticipant) { try await alicePhone.sendSessionEvent(room, type: "raiseHand") }
        await expectError(.badRequest) { try await bob.sendSessionEvent(room, type: "raise hand") }
        await expectError(.badRequest) {
            try await bob.sendSessionEvent(room, type: "x", data: .string(String(repeating: "x", count: 3000)))
        }

        await expectError(.notHost) { try await bob.muteParticipant(room, uid: "carol") }
        await expectError(.notHost) { try await carol.removeParticipant(room, uid: "bob") }
        await expectError(.badRequest) { try await alice.muteParticipant(room, uid: "alice") }
        let muted = try await alice.muteParticipant(room, uid: "carol")
        #expect(muted.participants.first { $0.uid == "carol" }?.audioMuted == true)
        let mutedPush = Push.userMuted(sessionId: room, user: carolUser, audioMuted: true, videoMuted: false, mutedBy: aliceUser)
        #expect(try await carol.expectPush() == mutedPush)
        #expect(try await bob.expectPush() == mutedPush)

        let removed = try await alice.removeParticipant(room, uid: "carol")
        #expect(removed.participants.map(\.uid) == ["alice", "bob"])
        #expect(try await carol.expectPush() == .removedFromCall(sessionId: room, by: aliceUser))
        #expect(try await bob.expectPush() == .userLeft(sessionId: room, user: carolUser))
        #expect(try await alice.expectPush() == .userLeft(sessionId: room, user: carolUser))
        await expectError(.notParticipant) { try await carol.joinSession(callToken: carolToken.callToken) }
        await expectError(.notParticipant) { try await carol.sendSessionEvent(room, type: "raiseHand") }
    }

    /// Each user may send `--max-session-events` per ten seconds; the next gets ERR_RATE_LIMITED
    /// and reaches nobody.
    @Test func sessionEventsAreRateLimitedPerUser() async throws {
        let gateway = try await TestGateway { $0.core.maxSessionEventsPerWindow = 5 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let room = "meet:reactions"
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: room).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: room).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()
        for index in 0..<5 {
            _ = try await bob.sendSessionEvent(room, type: "reaction", data: .number(Double(index)))
            #expect(try await alice.expectPush() == .sessionEvent(
                sessionId: room, type: "reaction", data: .number(Double(index)), user: User(uid: "bob", name: "Bob")))
        }
        await expectError(.rateLimited) { try await bob.sendSessionEvent(room, type: "reaction") }
        await alice.expectSilence()
        _ = try await alice.sendSessionEvent(room, type: "reaction")
    }
}
