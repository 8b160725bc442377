import CallGateCore
import CallGateProtocol
import Testing

/// How a stored row reads for one user (`log(for:at:)`): the direction from their side, the
/// `missed` flag (callees of unanswered, cancelled or busy calls and members the call stopped
/// ringing; never the initiator, never a decliner of a rejected call), the duration of the
/// answered part only, stays in progress counted up to the time asked, and the derived fields.
@Suite struct CallLogRecordTests {
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let recording = CallLogRecording(rid: "s7-r1", startedAt: 110, endedAt: 120, duration: 10)

    /// A 1:1 video call alice -> bob rung at 100, answered at 105, ended at 165.
    private var endedCall: CallLogRecord {
        CallLogRecord(
            id: 7, sessionId: "s7", callCategory: .call, callType: .video, callStatus: .ended,
            initiator: alice, receiver: .user(bob), initiatedAt: 100, startedAt: 105, endedAt: 165,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: 105, leftAt: 165, closed: 60),
                Fixture.entry("bob", .joined, joinedAt: 105, leftAt: 165, closed: 60),
            ],
            recordings: [recording], metadata: ["k": .string("v")])
    }

    /// A 1:1 audio call alice -> bob rung at 100 and never answered, ended with `status` at 130;
    /// bob's part is `bobState`.
    private func unansweredCall(_ status: CallStatus, bobState: CallLogParticipantState) -> CallLogRecord {
        CallLogRecord(
            id: 8, sessionId: "s8", callCategory: .call, callType: .audio, callStatus: status,
            initiator: alice, receiver: .user(bob), initiatedAt: 100, endedAt: 130,
            participants: [Fixture.entry("alice", .joined), Fixture.entry("bob", bobState)])
    }

    @Test func bothSidesSeeTheSameCallFromTheirDirection() {
        let expected = CallLog(
            sessionId: "s7", initiator: alice, receiver: .user(bob), receiverType: .user, callType: .video,
            callStatus: .ended, callCategory: .call, callDirection: .outgoing, initiatedAt: 100, startedAt: 105,
            endedAt: 165, duration: 60, hasRecording: true, recordings: [recording],
            participants: [
                CallLogParticipant(uid: "alice", name: "Alice", joinedAt: 105, leftAt: 165, totalDuration: 60, state: .joined),
                CallLogParticipant(uid: "bob", name: "Bob", joinedAt: 105, leftAt: 165, totalDuration: 60, state: .joined),
            ],
            missed: nil, metadata: ["k": .string("v")], callUUID: CallUUID.of(sessionId: "s7"))
        #expect(endedCall.log(for: "alice", at: 999) == expected)
        var bobsView = expected
        bobsView.callDirection = .incoming
        #expect(endedCall.log(for: "bob", at: 999) == bobsView)
    }

    @Test(arguments: [CallStatus.unanswered, .cancelled, .busy])
    func anUnansweredCancelledOrBusyCallIsMissedByTheCalleeOnly(_ status: CallStatus) {
        let record = unansweredCall(status, bobState: status == .busy ? .declined : .missed)
        let bobs = record.log(for: "bob", at: 500)
        #expect(bobs.missed == true)
        #expect(bobs.duration == 0)
        #expect(bobs.startedAt == nil)
        #expect(bobs.participants.map(\.totalDuration) == [0, 0])
        #expect(record.log(for: "alice", at: 500).missed == nil)
        #expect(!record.isMissed(by: "alice"))
    }

    @Test func aRejectedCallIsNotMissedByTheDecliner() {
        let record = unansweredCall(.rejected, bobState: .declined)
        #expect(record.log(for: "bob", at: 500).missed == nil)
        #expect(record.log(for: "alice", at: 500).missed == nil)
    }

    @Test func aMemberWhoDeclinedACallThatWasLaterCancelledDidNotMissIt() {
        #expect(unansweredCall(.cancelled, bobState: .declined).log(for: "bob", at: 500).missed == nil)
        #expect(unansweredCall(.unanswered, bobState: .declined).log(for: "bob", at: 500).missed == nil)
    }

    @Test func aCalleeWhoDeclinedAsBusyMissedIt() {
        #expect(unansweredCall(.busy, bobState: .declined).log(for: "bob", at: 500).missed == true)
    }

    @Test func theInitiatorNeverMissesTheirOwnCallAndOutsidersMissNothing() {
        for status in CallStatus.allCases {
            var record = unansweredCall(status, bobState: .missed)
            record.participants[0].state = .missed
            #expect(!record.isMissed(by: "alice"))
            #expect(!record.isMissed(by: "zed"))
        }
        #expect(endedCall.log(for: "zed", at: 0).callDirection == .incoming)
    }

    @Test func aGroupMemberTheCallStoppedRingingMissedItWhileTheOthersTalked() {
        let record = CallLogRecord(
            id: 9, sessionId: "s9", callCategory: .call, callType: .audio, callStatus: .ended,
            initiator: alice, receiver: .group(Group(guid: "team", name: "Team", membersCount: 4)),
            initiatedAt: 100, startedAt: 105, endedAt: 200,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: 105, leftAt: 200, closed: 95),
                Fixture.entry("bob", .joined, joinedAt: 105, leftAt: 200, closed: 95),
                Fixture.entry("carol", .declined),
                Fixture.entry("dave", .missed),
            ])
        #expect(record.log(for: "dave", at: 300).missed == true)
        #expect(record.log(for: "carol", at: 300).missed == nil)
        #expect(record.log(for: "bob", at: 300).missed == nil)
        #expect(record.log(for: "alice", at: 300).missed == nil)
        #expect(record.log(for: "dave", at: 300).receiverType == .group)
        #expect(record.groupID == "team")
        #expect(record.log(for: "dave", at: 300).duration == 95)
    }

    @Test func aStayInProgressCountsUpToTheTimeAsked() {
        let ongoing = CallLogRecord(
            id: 10, sessionId: "s10", callCategory: .call, callType: .audio, callStatus: .ongoing,
            initiator: alice, receiver: .group(Group(guid: "team", name: "Team", membersCount: 3)),
            initiatedAt: 100, startedAt: 105,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: 105, stay: 105),
                Fixture.entry("bob", .joined, joinedAt: 105, leftAt: 120, closed: 15),
                Fixture.entry("carol", .ringing),
            ])
        let view = ongoing.log(for: "bob", at: 205)
        #expect(view.duration == 0)
        #expect(view.endedAt == nil)
        #expect(view.participants == [
            CallLogParticipant(uid: "alice", name: "Alice", joinedAt: 105, totalDuration: 100, state: .joined),
            CallLogParticipant(uid: "bob", name: "Bob", joinedAt: 105, leftAt: 120, totalDuration: 15, state: .joined),
            CallLogParticipant(uid: "carol", name: "Carol", totalDuration: 0, state: .ringing),
        ])
        #expect(view.missed == nil)
        #expect(ongoing.log(for: "carol", at: 205).missed == nil)
        #expect(ongoing.isOpen)
    }

    @Test func aRejoinedMeetingStayAddsToTheClosedOnes() {
        let meet = CallLogRecord(
            id: 11, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: alice, receiver: nil, initiatedAt: 100, startedAt: 100,
            participants: [Fixture.entry("alice", .joined, joinedAt: 100, closed: 30, stay: 170)])
        let view = meet.log(for: "alice", at: 200)
        #expect(view.participants.map(\.totalDuration) == [60])
        #expect(view.receiverType == nil)
        #expect(view.receiver == nil)
        #expect(view.callDirection == .outgoing)
        #expect(!view.hasRecording)
        #expect(view.recordings == [])
        #expect(meet.groupID == nil)
    }

    @Test func anEndedCallIgnoresTheTimeAsked() {
        #expect(endedCall.log(for: "bob", at: 10_000) == endedCall.log(for: "bob", at: 165))
    }

    @Test func aRowFromTheCoreReadsTheSameWay() throws {
        let f = Fixture()
        let a = f.connect("alice")
        _ = f.connect("bob")
        _ = try #require(f.call("bob", from: a).call)
        f.at(45)
        let row = try #require(f.changes().first)
        #expect(row.log(for: "bob", at: Fixture.t0 + 45, unseen: [row.id]) == CallLog(
            sessionId: "s1", initiator: alice, receiver: .user(bob), receiverType: .user, callType: .audio,
            callStatus: .unanswered, callCategory: .call, callDirection: .incoming, initiatedAt: Fixture.t0,
            endedAt: Fixture.t0 + 45, duration: 0, hasRecording: false, recordings: [],
            participants: [
                CallLogParticipant(uid: "alice", name: "Alice", totalDuration: 0, state: .joined),
                CallLogParticipant(uid: "bob", name: "Bob", totalDuration: 0, state: .missed),
            ],
            missed: true, seen: false, callUUID: CallUUID.of(sessionId: "s1"), ringExpiresAt: Fixture.t0 + 45))
        #expect(row.log(for: "bob", at: Fixture.t0 + 45, unseen: []).seen == true, "marked seen")
        #expect(row.log(for: "alice", at: Fixture.t0 + 45, unseen: [row.id]).seen == nil, "the caller missed nothing")
        #expect(row.missedUIDs == ["bob"])
    }
}
