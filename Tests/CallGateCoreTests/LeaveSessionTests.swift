@testable import CallGateCore
import CallGateProtocol
import Testing

/// leaveSession: alice (2 devices), bob (2), carol (2), dave (1); group "team" has all four.
@Suite struct LeaveSessionTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: [ConnectionID]
    let d: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let carol = Fixture.user("carol")
    let t0 = Fixture.t0

    init() {
        f.group("team", ["alice", "bob", "carol", "dave"])
        a = f.devices("alice", 2)
        b = f.devices("bob", 2)
        c = f.devices("carol", 2)
        d = f.connect("dave")
    }

    /// alice rings bob, bob accepts on b[0], both join from their first device.
    private func directCallInSession() throws -> Call {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.accept(ringing.sessionId, from: b[0])
        _ = f.join(ringing.sessionId, from: a[0])
        _ = f.join(ringing.sessionId, from: b[0])
        return try #require(f.core.activeCalls(of: "alice").first)
    }

    @Test func leavingADirectCallEndsItForBoth() throws {
        let ongoing = try directCallInSession()
        f.advance(seconds: 10)
        let outcome = f.leave(ongoing.sessionId, from: a[0])
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 10
        #expect(outcome.reply == .success(Session(
            sessionId: ongoing.sessionId, callCategory: .call, callType: .audio, participants: [],
            recording: false, startedAt: t0)))
        #expect(outcome.deliveries == [
            delivery(.userLeft(sessionId: ongoing.sessionId, user: alice), b),
            delivery(.userListChanged(sessionId: ongoing.sessionId,
                                      participants: [Fixture.participant("bob", joinedAt: t0)]), b),
            delivery(.callEndedMessageReceived(call: ended, by: alice, reason: .hungUp), [a[1]] + b),
            delivery(.callEnded(sessionId: ongoing.sessionId), [a[1]] + b),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.activeSessionCount == 0)
        #expect(f.end(ongoing.sessionId, from: b[0]).errorCode == .callEnded)
        #expect(f.leave(ongoing.sessionId, from: b[0]).errorCode == .callEnded)
        #expect(f.core.nextDeadline == Fixture.start + 10_000 + 300_000)
    }

    @Test func leavingFromOneOfTwoJoinedDevicesChangesNothingElse() throws {
        let ongoing = try directCallInSession()
        _ = f.join(ongoing.sessionId, from: a[1])
        let outcome = f.leave(ongoing.sessionId, from: a[1])
        #expect(outcome.deliveries.isEmpty)
        #expect(outcome.session?.participants.map(\.uid) == ["alice", "bob"])
        #expect(f.leave(ongoing.sessionId, from: a[1]).reply == .failure(CoreError(
            code: .notParticipant, message: "you have not joined this session")))
        #expect(f.core.activeCalls(of: "bob") == [ongoing])
    }

    @Test func leavingAGroupCallSessionLeavesTheCallUntilItEnds() throws {
        let ringing = try #require(f.call("team", from: a[0], type: .group, timeout: 300).call)
        _ = f.accept(ringing.sessionId, from: b[0])
        _ = f.accept(ringing.sessionId, from: c[0])
        for device in [a[0], b[0], c[0]] {
            _ = f.join(ringing.sessionId, from: device)
        }
        let ongoing = try #require(f.core.activeCalls(of: "alice").first)
        let id = ongoing.sessionId
        f.advance(seconds: 20)

        let bobLeaves = f.leave(id, from: b[0])
        #expect(bobLeaves.session?.participants.map(\.uid) == ["alice", "carol"])
        #expect(bobLeaves.deliveries == [
            delivery(.userLeft(sessionId: id, user: bob), a + c),
            delivery(.userListChanged(sessionId: id, participants: [
                Fixture.participant("alice", joinedAt: t0), Fixture.participant("carol", joinedAt: t0),
            ]), a + c),
            delivery(.callEndedMessageReceived(call: ongoing, by: bob, reason: .hungUp), [b[1]]),
        ])
        #expect(f.core.activeCallCount == 1)
        #expect(f.join(id, from: b[1]).errorCode == .callEnded)

        f.advance(seconds: 5)
        let carolLeaves = f.leave(id, from: c[0])
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 25
        #expect(carolLeaves.session?.participants == [])
        #expect(carolLeaves.deliveries == [
            delivery(.userLeft(sessionId: id, user: carol), a),
            delivery(.userListChanged(sessionId: id, participants: [Fixture.participant("alice", joinedAt: t0)]), a),
            delivery(.callEndedMessageReceived(call: ended, by: carol, reason: .hungUp), [c[1]] + a),
            delivery(.incomingCallCanceled(call: ended, reason: .ended), [d]),
            delivery(.callEnded(sessionId: id), [c[1]] + a),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func theCallerLeavingARingingCallCancelsIt() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.join(ringing.sessionId, from: a[0])
        let outcome = f.leave(ringing.sessionId, from: a[0])
        var cancelled = ringing
        cancelled.callStatus = .cancelled
        cancelled.endedAt = t0
        #expect(outcome.deliveries == [
            delivery(.incomingCallCanceled(call: cancelled, reason: .cancelled), b),
            delivery(.callEnded(sessionId: ringing.sessionId), [a[1]]),
        ])
        #expect(f.accept(ringing.sessionId, from: b[0]).errorCode == .callCancelled)
    }

    @Test func aStandaloneSessionEndsWithItsLastParticipant() throws {
        _ = f.join("room:1", from: a[0])
        _ = f.join("room:1", from: b[0])
        f.advance(seconds: 3)
        let bobLeaves = f.leave("room:1", from: b[0])
        #expect(bobLeaves.deliveries == [
            delivery(.userLeft(sessionId: "room:1", user: bob), a),
            delivery(.userListChanged(sessionId: "room:1", participants: [Fixture.participant("alice", joinedAt: t0)]),
                     a),
        ])
        #expect(f.core.activeSessionCount == 1)
        let aliceLeaves = f.leave("room:1", from: a[0])
        #expect(aliceLeaves.reply == .success(Session(
            sessionId: "room:1", callCategory: .meet, callType: .video, participants: [], recording: false,
            startedAt: t0)))
        #expect(aliceLeaves.deliveries == [delivery(.callEnded(sessionId: "room:1"), [a[1]])])
        #expect(f.core.activeSessionCount == 0)
        #expect(f.core.nextDeadline == Fixture.start + 3_000 + 300_000)
        #expect(f.leave("room:1", from: a[0]).reply == .failure(CoreError(code: .callEnded, message: "the call is over")))
        #expect(f.mute("room:1", audio: true, from: a[0]).errorCode == .callEnded)
    }

    @Test func anEndedStandaloneSessionIdCanBeJoinedAgain() throws {
        _ = f.join("room:1", from: a[0])
        _ = f.leave("room:1", from: a[0])
        f.advance(seconds: 7)
        let again = f.join("room:1", from: b[0], audioOnly: true)
        #expect(again.reply == .success(Session(
            sessionId: "room:1", callCategory: .meet, callType: .audio,
            participants: [Fixture.participant("bob", joinedAt: t0 + 7)], recording: false, startedAt: t0 + 7)))
        #expect(f.core.sessionHistory("room:1")?.participants.map(\.uid) == ["bob"])
        f.advance(seconds: 300)
        #expect(f.fireDueTimers().map(\.push.event) == [.onSessionTimeout, .onCallEnded])
        #expect(f.core.sessionHistory("room:1")?.startedAt == t0 + 7)
    }

    @Test func onlyADeviceThatJoinedMayLeave() throws {
        _ = f.join("room:1", from: a[0])
        #expect(f.leave("room:1", from: c[0]).reply == .failure(CoreError(
            code: .notParticipant, message: "you have not joined this session")))
        #expect(f.leave("room:1", from: a[1]).errorCode == .notParticipant)
        let ringing = try #require(f.call("bob", from: c[0]).call)
        #expect(f.leave(ringing.sessionId, from: c[0]).errorCode == .notParticipant)
        #expect(f.leave("nope", from: a[0]).reply == .failure(CoreError(code: .callNotFound, message: "no such call")))
        #expect(f.leave("no/pe", from: a[0]).errorCode == .invalidSessionID)
        #expect(f.leave("room:1", from: ConnectionID(999)).errorCode == .userNotLoggedIn)
        #expect(f.core.activeSessionCount == 1)
    }
}
