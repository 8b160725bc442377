import CallGateCore
import CallGateProtocol
import Testing

/// Which ops and timers of a 1:1 call change its call log row, and the whole row after each:
/// one row per call (its id never changes between saves), written from the call's own
/// transitions; ops that change nothing leave nothing to take.
@Suite struct CallLogChangesTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = f.connect("alice")
        b = f.connect("bob")
    }

    /// The row of call s1, alice -> bob (audio), rung at t0 with the default 45 s timeout.
    private func ringingRow(metadata: [String: JSONValue]? = nil) -> CallLogRecord {
        CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: alice, receiver: .user(bob), initiatedAt: t0, ringDeadline: Fixture.millis(45), ringExpiresAt: t0 + 45,
            participants: [Fixture.entry("alice", .joined), Fixture.entry("bob", .ringing)], metadata: metadata)
    }

    /// `row` ended at `second` with `status`, nobody ringing any more.
    private func finished(_ row: CallLogRecord, _ status: CallStatus, at second: Int64) -> CallLogRecord {
        var row = row
        row.callStatus = status
        row.endedAt = t0 + second
        row.ringDeadline = nil
        return row
    }

    @Test func ringingAnsweringAndHangingUpRewriteOneRow() throws {
        let metadata: [String: JSONValue] = ["topic": .string("standup"), "n": .number(3)]
        _ = try #require(f.call("bob", from: a, metadata: metadata).call)
        var row = ringingRow(metadata: metadata)
        #expect(f.changes() == [row])

        f.at(5)
        _ = try #require(f.accept("s1", from: b).call)
        row.callStatus = .ongoing
        row.startedAt = t0 + 5
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, stay: t0 + 5),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, stay: t0 + 5),
        ]
        #expect(f.changes() == [row])

        f.at(65)
        #expect(f.end("s1", from: a).call?.callStatus == .ended)
        row.callStatus = .ended
        row.endedAt = t0 + 65
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 65, closed: 60),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 65, closed: 60),
        ]
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 999).duration == 60)
    }

    @Test func aTakeWithNoChangeInBetweenIsEmpty() throws {
        #expect(f.changes() == [])
        _ = try #require(f.call("bob", from: a).call)
        #expect(f.changes().count == 1)
        #expect(f.changes() == [])
        f.at(44)
        #expect(f.changes() == [])
        #expect(f.accept("s1", from: a).errorCode == .notParticipant)
        #expect(f.end("s9", from: a).errorCode == .callNotFound)
        f.connect("bob")
        #expect(f.changes() == [])
    }

    @Test func aDeclineEndsTheRowRejectedWithTheCalleeDeclined() throws {
        _ = try #require(f.call("bob", from: a).call)
        _ = f.changes()
        f.at(3)
        #expect(f.reject("s1", .rejected, from: b).call?.callStatus == .rejected)
        var row = finished(ringingRow(), .rejected, at: 3)
        row.participants[1].state = .declined
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 3).missed == nil)
    }

    @Test func aBusyDeclineEndsTheRowBusyWithTheCalleeDeclined() throws {
        _ = try #require(f.call("bob", from: a).call)
        f.at(3)
        #expect(f.reject("s1", .busy, from: b).call?.callStatus == .busy)
        var row = finished(ringingRow(), .busy, at: 3)
        row.participants[1].state = .declined
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 3).missed == true)
    }

    @Test func aCancelEndsTheRowCancelledAndTheCalleeMissedIt() throws {
        _ = try #require(f.call("bob", from: a).call)
        f.at(7)
        #expect(f.reject("s1", .cancelled, from: a).call?.callStatus == .cancelled)
        var row = finished(ringingRow(), .cancelled, at: 7)
        row.participants[1].state = .missed
        #expect(f.changes() == [row])
    }

    @Test func hangingUpARingingCallIsACancel() throws {
        _ = try #require(f.call("bob", from: a).call)
        f.at(7)
        #expect(f.end("s1", from: a).call?.callStatus == .cancelled)
        var row = finished(ringingRow(), .cancelled, at: 7)
        row.participants[1].state = .missed
        #expect(f.changes() == [row])
    }

    @Test func theRingTimeoutEndsTheRowUnanswered() throws {
        _ = try #require(f.call("bob", from: a).call)
        _ = f.changes()
        f.advance(millis: 44_999)
        _ = f.fireDueTimers()
        #expect(f.changes() == [])
        f.at(45)
        var row = finished(ringingRow(), .unanswered, at: 45)
        row.participants[1].state = .missed
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 45).missed == true)
    }

    @Test func aCalleeInAnotherCallGetsABusyRowAtOnce() throws {
        let c = f.connect("carol")
        _ = try #require(f.call("bob", from: a).call)
        _ = f.accept("s1", from: b)
        _ = f.changes()
        f.at(9)
        let reply = try #require(f.call("bob", from: c, callType: .video).call)
        #expect(reply == Call(
            sessionId: "s2", callType: .video, receiverType: .user, callStatus: .busy,
            initiator: Fixture.user("carol"), receiver: .user(bob), initiatedAt: t0 + 9, endedAt: t0 + 9,
            callUUID: CallUUID.of(sessionId: "s2"), ringExpiresAt: t0 + 9 + 45))
        let row = CallLogRecord(
            id: 2, sessionId: "s2", callCategory: .call, callType: .video, callStatus: .busy,
            initiator: Fixture.user("carol"), receiver: .user(bob), initiatedAt: t0 + 9, endedAt: t0 + 9,
            ringExpiresAt: t0 + 9 + 45, participants: [Fixture.entry("carol", .joined), Fixture.entry("bob", .missed)])
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 9).missed == true)
        #expect(row.log(for: "carol", at: t0 + 9).missed == nil)
    }

    @Test func aVanishedCallerIsCancelledAfterTheCallerGracePeriod() throws {
        _ = try #require(f.call("bob", from: a).call)
        _ = f.changes()
        f.at(1)
        _ = f.disconnect(a)
        #expect(f.changes() == [])
        f.advance(millis: 9_999)
        _ = f.fireDueTimers()
        #expect(f.changes() == [])
        f.at(11)
        var row = finished(ringingRow(), .cancelled, at: 11)
        row.participants[1].state = .missed
        #expect(f.changes() == [row])
    }

    @Test func aVanishedParticipantEndsTheCallAfterTheParticipantGracePeriod() throws {
        _ = try #require(f.call("bob", from: a).call)
        f.at(5)
        _ = f.accept("s1", from: b)
        _ = f.changes()
        f.at(20)
        _ = f.disconnect(b)
        #expect(f.changes() == [])
        f.at(50)
        var row = finished(ringingRow(), .ended, at: 50)
        row.startedAt = t0 + 5
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 50, closed: 45),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 50, closed: 45),
        ]
        #expect(f.changes() == [row])
    }

    @Test func severalCallsInOneTakeAreOneRowEachInIdOrder() throws {
        let c = f.connect("carol")
        let d = f.connect("dave")
        _ = try #require(f.call("bob", from: a).call)
        _ = try #require(f.call("dave", from: c).call)
        _ = f.accept("s2", from: d)
        _ = f.accept("s1", from: b)
        f.at(10)
        _ = f.end("s2", from: d)
        _ = f.end("s1", from: b)
        let rows = f.changes()
        #expect(rows.map(\.id) == [1, 2])
        #expect(rows.map(\.sessionId) == ["s1", "s2"])
        #expect(rows.map(\.callStatus) == [.ended, .ended])

        _ = try #require(f.call("carol", from: a).call)
        #expect(f.changes().map(\.id) == [3])
    }
}
