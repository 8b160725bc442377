import CallGateClient
import CallGateProtocol
import Testing

@Suite("Call sessions over real sockets")
struct SessionFlowTests {
    @Test func aFullOneToOneSession() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        let aliceUser = User(uid: "alice", name: "Alice")
        let bobUser = User(uid: "bob", name: "Bob")

        let aliceToken = try await alice.generateToken(sessionId: call.sessionId)
        #expect(aliceToken.sessionId == call.sessionId)
        let bobToken = try await bob.generateToken(sessionId: call.sessionId)
        await expectError(.authError) { try await bob.joinSession(callToken: aliceToken.callToken) }

        let first = try await alice.joinSession(callToken: aliceToken.callToken, audioOnly: true)
        #expect(first.callCategory == .call)
        #expect(first.participants.map(\.uid) == ["alice"])
        await bob.expectSilence()

        let both = try await bob.joinSession(callToken: bobToken.callToken)
        #expect(both.participants.map(\.uid) == ["alice", "bob"])
        #expect(try await alice.expectPush() == .userJoined(sessionId: call.sessionId, user: bobUser))
        #expect(try await alice.expectPush() == .userListChanged(sessionId: call.sessionId, participants: both.participants))
        await expectError(.callAlreadyJoined) { try await bob.joinSession(callToken: bobToken.callToken) }

        let muted = try await alice.setMuted(call.sessionId, audio: true)
        #expect(muted.participants.first { $0.uid == "alice" }?.audioMuted == true)
        #expect(
            try await bob.expectPush()
                == .userMuted(sessionId: call.sessionId, user: aliceUser, audioMuted: true, videoMuted: false))

        let recording = try await bob.startRecording(call.sessionId)
        #expect(recording.recording)
        #expect(try await alice.expectPush() == .recordingToggled(sessionId: call.sessionId, recordingStarted: true, user: bobUser))
        await expectError(.badRequest) { try await bob.startRecording(call.sessionId) }
        _ = try await bob.stopRecording(call.sessionId)
        #expect(try await alice.expectPush() == .recordingToggled(sessionId: call.sessionId, recordingStarted: false, user: bobUser))

        let video = try await alice.switchToVideo(call.sessionId)
        #expect(video.callType == .video)
        #expect(try await bob.expectPush() == .callSwitchedToVideo(sessionId: call.sessionId, requestedBy: aliceUser))

        _ = try await bob.leaveSession(call.sessionId)
        var seen: [EventName] = []
        while !seen.contains(.onCallEnded), seen.count < 6 {
            let push = try await alice.expectPush()
            seen.append(push.event)
            if case .callEndedMessageReceived(let ended, let by, _) = push {
                #expect(ended.callStatus == .ended)
                #expect(ended.callType == .video)
                #expect(by == bobUser)
            }
        }
        #expect(seen == [.onUserLeft, .onUserListChanged, .onCallEndedMessageReceived, .onCallEnded])
        await expectError(.callEnded) { try await alice.generateToken(sessionId: call.sessionId) }
    }

    @Test func aFourMemberGroupSession() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("crew", members: ["ann", "ben", "cat", "dan"])
        let ann = try await gateway.device("ann")
        let others = [try await gateway.device("ben"), try await gateway.device("cat"), try await gateway.device("dan")]
        let call = try await ann.initiateCall(to: "crew", receiverType: .group)
        for member in others {
            _ = try await member.expectPush()
        }
        var everyone = [ann]
        for member in others {
            _ = try await member.acceptCall(call.sessionId)
            for earlier in everyone {
                _ = try await earlier.expectPush()
            }
            everyone.append(member)
        }
        for (index, member) in everyone.enumerated() {
            let token = try await member.generateToken(sessionId: call.sessionId)
            let session = try await member.joinSession(callToken: token.callToken)
            #expect(session.participants.count == index + 1)
            for earlier in everyone[..<index] {
                guard case .userJoined = try await earlier.expectPush(), case .userListChanged = try await earlier.expectPush() else {
                    Issue.record("expected onUserJoined then onUserListChanged")
                    return
                }
            }
        }

        let afterLeave = try await others[2].leaveSession(call.sessionId)
        #expect(afterLeave.participants.map(\.uid) == ["ann", "ben", "cat"])
        for remaining in everyone[..<3] {
            #expect(try await remaining.expectPush() == .userLeft(sessionId: call.sessionId, user: User(uid: "dan", name: "Dan")))
            guard case .userListChanged(_, let participants) = try await remaining.expectPush() else {
                Issue.record("expected onUserListChanged")
                return
            }
            #expect(participants.count == 3)
        }
    }

    @Test func aStandaloneMeetSessionTimesOutWhenAlone() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let token = try await alice.generateToken(sessionId: "standup:2026-11-22")
        let session = try await alice.joinSession(callToken: token.callToken, idleTimeout: 1)
        #expect(session.callCategory == .meet)
        #expect(session.callType == .video)
        #expect(try await alice.expectPush(within: .seconds(5)) == .sessionTimeout(sessionId: "standup:2026-11-22"))
        await expectError(.invalidSessionID) { try await alice.generateToken(sessionId: "no spaces allowed") }
    }
}
