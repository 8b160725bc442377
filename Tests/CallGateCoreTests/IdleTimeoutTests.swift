import CallGateCore
import CallGateProtocol
import Testing

/// A participant alone in a session for their idle timeout is removed and the session ends.
@Suite struct IdleTimeoutTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: ConnectionID
    let t0 = Fixture.t0

    init() {
        a = f.devices("alice", 2)
        b = f.connect("bob")
    }

    @Test func theDefaultIsThreeMinutes() throws {
        _ = f.join("room:1", from: a[0])
        #expect(f.core.nextDeadline == Fixture.start + 180_000)
        f.advance(millis: 179_999)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        #expect(f.fireDueTimers() == [
            delivery(.sessionTimeout(sessionId: "room:1"), a),
            delivery(.callEnded(sessionId: "room:1"), a),
        ])
        #expect(f.core.activeSessionCount == 0)
        #expect(f.core.sessionHistory("room:1")?.participants.first?.leftAt == t0 + 180)
        #expect(f.leave("room:1", from: a[0]).errorCode == .callEnded)
    }

    @Test func aCustomIdleTimeoutIsHonoured() throws {
        _ = f.join("room:1", from: a[1], idleTimeout: 30)
        f.advance(seconds: 29)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(seconds: 1)
        #expect(f.fireDueTimers().map(\.push.event) == [.onSessionTimeout, .onCallEnded])
    }

    @Test func theConfiguredDefaultApplies() throws {
        let g = Fixture(CoreConfiguration(defaultIdleTimeout: 12))
        let x = g.connect("alice")
        _ = g.join("room:1", from: x)
        #expect(g.core.nextDeadline == Fixture.start + 12_000)
    }

    @Test func theClockRestartsWhenSomeoneElseJoins() throws {
        _ = f.join("room:1", from: a[0], idleTimeout: 60)
        f.advance(seconds: 50)
        _ = f.join("room:1", from: b)
        #expect(f.core.nextDeadline == nil)
        f.advance(seconds: 50)
        _ = f.leave("room:1", from: b)
        #expect(f.core.nextDeadline == Fixture.start + 160_000)
        f.advance(seconds: 59)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(seconds: 1)
        #expect(f.fireDueTimers() == [
            delivery(.sessionTimeout(sessionId: "room:1"), a),
            delivery(.callEnded(sessionId: "room:1"), a),
        ])
    }

    @Test func theLatestJoinOfTheLoneUserSetsTheirTimeoutFromWhenTheyBecameAlone() throws {
        _ = f.join("room:1", from: a[0], idleTimeout: 60)
        f.advance(seconds: 10)
        _ = f.join("room:1", from: a[1], idleTimeout: 100)
        #expect(f.core.nextDeadline == Fixture.start + 100_000)
    }

    @Test func anAnsweredCallEndsWhenItsOnlySessionParticipantTimesOut() throws {
        let ringing = try #require(f.call("bob", from: a[0], timeout: 300).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        _ = f.join(ringing.sessionId, from: a[0], idleTimeout: 30)
        f.advance(seconds: 30)
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 30
        #expect(f.fireDueTimers() == [
            delivery(.sessionTimeout(sessionId: ringing.sessionId), a),
            delivery(.callEnded(sessionId: ringing.sessionId), a + [b]),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.end(ringing.sessionId, from: b).reply == .failure(CoreError(code: .callEnded, message: "the call is over")))
    }

    @Test func aCallStillRingingIsCancelledWhenItsCallerTimesOut() throws {
        let ringing = try #require(f.call("bob", from: a[0], timeout: 300).call)
        _ = f.join(ringing.sessionId, from: a[0], idleTimeout: 10)
        f.advance(seconds: 10)
        var cancelled = ringing
        cancelled.callStatus = .cancelled
        cancelled.endedAt = t0 + 10
        #expect(f.fireDueTimers() == [
            delivery(.sessionTimeout(sessionId: ringing.sessionId), a),
            delivery(.incomingCallCanceled(call: cancelled, reason: .cancelled), [b]),
            delivery(.callEnded(sessionId: ringing.sessionId), a),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func aGroupCallEndsWithItsSessionAndStopsRingingDevices() throws {
        f.group("team", ["alice", "bob", "carol"])
        let c = f.connect("carol")
        let ringing = try #require(f.call("team", from: a[0], type: .group, timeout: 300).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        _ = f.join(ringing.sessionId, from: b, idleTimeout: 5)
        f.advance(seconds: 5)
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 5
        #expect(f.fireDueTimers() == [
            delivery(.sessionTimeout(sessionId: ringing.sessionId), [b]),
            delivery(.incomingCallCanceled(call: ended, reason: .ended), [c]),
            delivery(.callEnded(sessionId: ringing.sessionId), [b] + a),
        ])
    }
}
