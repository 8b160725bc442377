import CallGateProtocol
import Testing

@testable import CallGateConsole

@Suite struct PushFormatterTests {
    let alice = User(uid: "alice", name: "Alice")
    let bob = User(uid: "bob", name: "bob")

    func call(_ status: CallStatus, group: Bool = false) -> Call {
        Call(
            sessionId: "s1", callType: .video, receiverType: group ? .group : .user, callStatus: status, initiator: alice,
            receiver: group ? .group(Group(guid: "team", name: "Team", membersCount: 3)) : .user(bob), initiatedAt: 1)
    }

    @Test func incomingCallsNameTheCallerAndSession() {
        #expect(PushFormatter.describe(.incomingCallReceived(call: call(.initiated))) == "incoming video call from Alice (alice) [session s1]")
        #expect(
            PushFormatter.describe(.incomingCallReceived(call: call(.initiated, group: true)))
                == "incoming video call from Alice (alice) to group Team (team) [session s1]")
    }

    @Test func answersAndRefusalsSayWho() {
        #expect(PushFormatter.describe(.outgoingCallAccepted(call: call(.ongoing), by: bob)) == "bob answered the call to bob")
        #expect(PushFormatter.describe(.outgoingCallRejected(call: call(.busy), by: bob)) == "bob is busy")
        #expect(PushFormatter.describe(.outgoingCallRejected(call: call(.rejected), by: bob)) == "bob declined")
        #expect(PushFormatter.describe(.outgoingCallRejected(call: call(.unanswered), by: nil)) == "nobody answered")
    }

    @Test func endsAndCancelsGiveTheReason() {
        #expect(
            PushFormatter.describe(.callEndedMessageReceived(call: call(.ended), by: alice, reason: .hungUp))
                == "Alice (alice) hung up; the call is over")
        #expect(
            PushFormatter.describe(.incomingCallCanceled(call: call(.cancelled), reason: .cancelled))
                == "the call from Alice (alice) stopped ringing: the caller hung up")
    }

    @Test func theCountOfMissedCallsIsPlural() {
        #expect(PushFormatter.describe(.missedCallsChanged(MissedCalls(unseen: 1, revision: 1))) == "1 unseen missed call")
        #expect(PushFormatter.describe(.missedCallsChanged(MissedCalls(unseen: 3, revision: 4))) == "3 unseen missed calls")
        #expect(PushFormatter.describe(.missedCallsChanged(MissedCalls(unseen: 0, revision: 5))) == "no unseen missed calls")
    }

    @Test func sessionPushesAreReadable() {
        #expect(PushFormatter.describe(.callEnded(sessionId: "s1")) == "session s1 ended")
        #expect(
            PushFormatter.describe(.userMuted(sessionId: "s1", user: alice, audioMuted: true, videoMuted: false))
                == "Alice (alice) in session s1: audio muted, video on")
        #expect(PushFormatter.describe(.userListChanged(sessionId: "s1", participants: [])) == "session s1 participants: none")
    }
}
