import CallGateCore
import CallGateProtocol
import Testing

/// Resuming after a crash: core A runs, its call log changes go to a store, A dies; core B
/// starts later (a fresh core and clock) and restores the open calls from that store. Ringing
/// calls ring on until their original timeout (closed `unanswered` at once if it passed) and
/// their caller gets the caller grace period; answered calls wait the participant grace period
/// for their people; meetings wait the same for someone to rejoin; running recordings stop; the
/// rows keep their ids and new calls get higher ones.
@Suite struct RestoreTests {
    let old = Fixture()
    let store = InMemoryCallLogStore()
    let a: ConnectionID
    let b: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = old.connect("alice")
        b = old.connect("bob")
    }

    /// Saves what core A changed, then starts core B at `second` (after A's clock) from the store.
    private func restart(at second: Int64) throws -> Fixture {
        try store.apply(old.changes().map(StoreWrite.call))
        let new = Fixture()
        new.advance(millis: Fixture.millis(second) - new.nowMillis)
        new.restore(openCalls: try store.openCalls(), lastCallID: try store.lastCallID())
        return new
    }

    /// The row of call s1, alice -> bob (audio), rung at t0 with a `timeout` s ring timeout.
    private func ringingRow(timeout: Int64 = 45) -> CallLogRecord {
        CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: alice, receiver: .user(bob), initiatedAt: t0, ringDeadline: Fixture.millis(timeout), ringExpiresAt: t0 + timeout,
            participants: [Fixture.entry("alice", .joined), Fixture.entry("bob", .ringing)])
    }

    @Test func aRingingCallWithTimeLeftRingsTheReturningCallee() throws {
        let call = try #require(old.call("bob", from: a, timeout: 60).call)
        old.at(10)
        let new = try restart(at: 20)
        #expect(new.changes() == [])
        #expect(new.core.activeCallCount == 1)
        #expect(new.core.nextDeadline == Fixture.millis(30))

        let bobAgain = ConnectionID(100)
        #expect(new.connect(bobAgain, user: bob) == [call])
        new.at(25)
        #expect(new.accept("s1", from: bobAgain).call?.callStatus == .ongoing)
        var row = ringingRow(timeout: 60)
        row.callStatus = .ongoing
        row.startedAt = t0 + 25
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 25, stay: t0 + 25),
            Fixture.entry("bob", .joined, joinedAt: t0 + 25, stay: t0 + 25),
        ]
        #expect(new.changes() == [row])
        // The ring timeout is gone and alice, still away, now has the participant grace period.
        #expect(new.core.nextDeadline == Fixture.millis(55))
    }

    @Test func aRingingCallWhoseTimeoutPassedEndsUnansweredAtOnce() throws {
        _ = try #require(old.call("bob", from: a).call)
        old.at(10)
        let new = try restart(at: 50)
        var row = ringingRow()
        row.callStatus = .unanswered
        row.endedAt = t0 + 50
        row.ringDeadline = nil
        row.participants[1].state = .missed
        #expect(new.changes() == [row])
        #expect(new.changes() == [])
        #expect(new.core.activeCallCount == 0)
        #expect(new.connect(ConnectionID(100), user: bob) == [])
    }

    @Test func theCallerOfARestoredRingingCallHasTheCallerGracePeriod() throws {
        _ = try #require(old.call("bob", from: a, timeout: 120).call)
        old.at(5)
        let new = try restart(at: 10)
        let bobAgain = ConnectionID(100)
        let ringing = try #require(new.connect(bobAgain, user: bob).first)
        new.advance(millis: 9_999)
        #expect(new.fireDueTimers() == [])
        #expect(new.changes() == [])

        var cancelled = ringing
        cancelled.callStatus = .cancelled
        cancelled.endedAt = t0 + 20
        #expect(new.at(20) == [delivery(.incomingCallCanceled(call: cancelled, reason: .cancelled), [bobAgain])])
        var row = ringingRow(timeout: 120)
        row.callStatus = .cancelled
        row.endedAt = t0 + 20
        row.ringDeadline = nil
        row.participants[1].state = .missed
        #expect(new.changes() == [row])
    }

    @Test func anAnsweredCallGoesOnWhenItsParticipantsReturn() throws {
        _ = try #require(old.call("bob", from: a).call)
        old.at(5)
        let ongoing = try #require(old.accept("s1", from: b).call)
        old.at(30)
        let new = try restart(at: 40)
        #expect(new.changes() == [])

        let aliceAgain = ConnectionID(100)
        let bobAgain = ConnectionID(101)
        #expect(new.connect(aliceAgain, user: alice) == [ongoing])
        #expect(new.connect(bobAgain, user: bob) == [ongoing])
        new.at(80)
        #expect(new.changes() == [])
        #expect(new.end("s1", from: aliceAgain).call?.callStatus == .ended)
        var row = ringingRow()
        row.callStatus = .ended
        row.startedAt = t0 + 5
        row.endedAt = t0 + 80
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 80, closed: 75),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 80, closed: 75),
        ]
        #expect(new.changes() == [row])
    }

    @Test func anAnsweredCallNobodyReturnsToEndsAfterTheParticipantGracePeriod() throws {
        _ = try #require(old.call("bob", from: a).call)
        old.at(5)
        _ = old.accept("s1", from: b)
        old.at(30)
        let new = try restart(at: 40)
        new.advance(millis: 29_999)
        _ = new.fireDueTimers()
        #expect(new.changes() == [])
        new.at(70)
        var row = ringingRow()
        row.callStatus = .ended
        row.startedAt = t0 + 5
        row.endedAt = t0 + 70
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 70, closed: 65),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 70, closed: 65),
        ]
        #expect(new.changes() == [row])
        #expect(new.core.activeCallCount == 0)
    }

    @Test func aRecordingThatRanIsStoppedAndTheNextOneContinuesItsNumbering() throws {
        _ = try #require(old.call("bob", from: a).call)
        old.at(2)
        _ = old.accept("s1", from: b)
        _ = old.join("s1", from: a)
        old.at(10)
        _ = try #require(old.record("s1", true, from: a).session)
        old.at(20)
        let new = try restart(at: 30)
        let stopped = CallLogRecording(rid: "s1-r1", startedAt: t0 + 10, endedAt: t0 + 30, duration: 20)
        #expect(new.changes().map(\.recordings) == [[stopped]])

        let aliceAgain = ConnectionID(100)
        _ = new.connect(aliceAgain, user: alice)
        _ = try #require(new.join("s1", from: aliceAgain).session)
        new.at(35)
        _ = try #require(new.record("s1", true, from: aliceAgain).session)
        #expect(new.changes().map(\.recordings) == [[stopped, CallLogRecording(rid: "s1-r2", startedAt: t0 + 35)]])
    }

    @Test func aMeetingNobodyRejoinsEndsAfterTheParticipantGracePeriod() throws {
        _ = old.join("room:1", from: a)
        old.at(10)
        _ = old.join("room:1", from: b)
        old.at(20)
        let new = try restart(at: 30)
        var row = CallLogRecord(
            id: 1, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: alice, receiver: nil, initiatedAt: t0, startedAt: t0,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: t0, leftAt: t0 + 30, closed: 30),
                Fixture.entry("bob", .joined, joinedAt: t0 + 10, leftAt: t0 + 30, closed: 20),
            ])
        #expect(new.changes() == [row])
        new.advance(millis: 29_999)
        _ = new.fireDueTimers()
        #expect(new.changes() == [])
        new.at(60)
        row.callStatus = .ended
        row.endedAt = t0 + 60
        #expect(new.changes() == [row])
        #expect(new.core.activeSessionCount == 0)
    }

    /// Two nodes started a meeting under one id while Redis could not tell them who owned it, and
    /// one node ends up with both open entries (a restart, a takeover): it resumes one and ends
    /// the other at once, so no entry stays open with no node to end it.
    @Test func aSecondOpenEntryOfARunningMeetingIsEndedNotLeftOpen() throws {
        let first = CallLogRecord(
            id: 1, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: alice, receiver: nil, initiatedAt: t0, startedAt: t0,
            participants: [Fixture.entry("alice", .joined, joinedAt: t0, closed: 0, stay: t0)])
        var second = first
        second.id = 2
        second.initiator = bob
        second.participants = [Fixture.entry("bob", .joined, joinedAt: t0 + 5, closed: 0, stay: t0 + 5)]
        let new = Fixture()
        new.advance(seconds: 30)
        new.restore(openCalls: [first, second], lastCallID: 2)
        var ended = second
        ended.callStatus = .ended
        ended.endedAt = t0 + 30
        ended.participants = [Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 30, closed: 25)]
        let rows = new.changes()
        #expect(rows.map(\.id) == [1, 2])
        #expect(rows.last == ended)
        #expect(rows.first?.callStatus == .ongoing)
        #expect(new.core.activeSessionCount == 1)
        new.restore(openCalls: [first], lastCallID: 2)
        #expect(new.changes() == [])
    }

    @Test func aMeetingRejoinedInTimeGoesOnInTheSameRow() throws {
        _ = old.join("room:1", from: a)
        old.at(10)
        _ = old.join("room:1", from: b)
        old.at(20)
        let new = try restart(at: 30)
        _ = new.changes()

        new.at(40)
        let bobAgain = ConnectionID(100)
        _ = new.connect(bobAgain, user: bob)
        _ = try #require(new.join("room:1", from: bobAgain).session)
        var row = CallLogRecord(
            id: 1, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: alice, receiver: nil, initiatedAt: t0, startedAt: t0,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: t0, leftAt: t0 + 30, closed: 30),
                Fixture.entry("bob", .joined, joinedAt: t0 + 10, closed: 20, stay: t0 + 40),
            ])
        #expect(new.changes() == [row])
        new.at(60)
        #expect(new.changes() == [])

        new.at(70)
        _ = try #require(new.leave("room:1", from: bobAgain).session)
        row.callStatus = .ended
        row.endedAt = t0 + 70
        row.participants[1] = Fixture.entry("bob", .joined, joinedAt: t0 + 10, leftAt: t0 + 70, closed: 50)
        #expect(new.changes() == [row])
    }

    @Test func aGroupCallKeepsEveryMembersPartAndRingsTheOnesStillRinging() throws {
        old.group("team", ["alice", "bob", "carol", "dave", "erin"])
        let c = old.connect("carol")
        let d = old.connect("dave")
        _ = old.connect("erin")
        _ = try #require(old.call("team", from: a, type: .group).call)
        old.at(5)
        _ = old.accept("s1", from: b)
        old.at(6)
        _ = old.accept("s1", from: c)
        old.at(7)
        _ = old.reject("s1", .rejected, from: d)
        old.at(10)
        _ = old.end("s1", from: c)
        old.at(20)
        let new = try restart(at: 30)
        new.group("team", ["alice", "bob", "carol", "dave", "erin"])
        #expect(new.changes() == [])

        let carolAgain = ConnectionID(100)
        let erinAgain = ConnectionID(101)
        _ = new.connect(carolAgain, user: Fixture.user("carol"))
        #expect(new.connect(erinAgain, user: Fixture.user("erin")).map(\.sessionId) == ["s1"])
        #expect(new.accept("s1", from: carolAgain).errorCode == .callEnded)
        new.at(32)
        #expect(new.accept("s1", from: erinAgain).call?.callStatus == .ongoing)
        #expect(new.changes() == [CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .ongoing,
            initiator: alice, receiver: .group(Group(guid: "team", name: "Group team", membersCount: 5)),
            initiatedAt: t0, startedAt: t0 + 5, ringExpiresAt: t0 + 45,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: t0 + 5, stay: t0 + 5),
                Fixture.entry("bob", .joined, joinedAt: t0 + 5, stay: t0 + 5),
                Fixture.entry("carol", .joined, joinedAt: t0 + 6, leftAt: t0 + 10, closed: 4),
                Fixture.entry("dave", .declined),
                Fixture.entry("erin", .joined, joinedAt: t0 + 32, stay: t0 + 32),
            ])])
    }

    @Test func newCallsAfterARestartGetIdsAfterTheLastOne() throws {
        let c = old.connect("carol")
        let d = old.connect("dave")
        _ = try #require(old.call("bob", from: a, timeout: 120).call)
        _ = try #require(old.call("dave", from: c).call)
        _ = old.reject("s2", .rejected, from: d)
        let new = try restart(at: 10)
        #expect(try store.openCalls().map(\.id) == [1])
        #expect(try store.lastCallID() == 2)

        let carolAgain = new.connect("carol")
        _ = new.connect("dave")
        let fresh = try #require(new.call("dave", from: carolAgain).call)
        _ = try #require(new.join("room:1", from: carolAgain).session)
        let rows = new.changes()
        #expect(rows.map(\.id) == [3, 4])
        #expect(rows.map(\.sessionId) == [fresh.sessionId, "room:1"])
        #expect(fresh.sessionId != "s1")
    }

    @Test func closedRowsAreNotResumed() throws {
        var row = ringingRow()
        row.callStatus = .cancelled
        row.endedAt = t0 + 1
        let new = Fixture()
        new.restore(openCalls: [row], lastCallID: 1)
        #expect(new.core.activeCallCount == 0)
        #expect(new.changes() == [])
        #expect(new.core.nextDeadline == nil)
    }
}
