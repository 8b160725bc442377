import CallGateCore
import CallGateProtocol
import Testing

/// The ringing ops end the session of their call. alice (2 devices), bob (2), carol (2).
@Suite struct EndCallSessionTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: [ConnectionID]
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = f.devices("alice", 2)
        b = f.devices("bob", 2)
        c = f.devices("carol", 2)
    }

    @Test func endCallEndsTheSessionForEveryoneButTheActor() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b[0]).call)
        _ = f.join(ringing.sessionId, from: a[0])
        _ = f.join(ringing.sessionId, from: b[1])
        f.advance(seconds: 42)
        let outcome = f.end(ringing.sessionId, from: b[1])
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 42
        #expect(outcome.reply == .success(ended))
        #expect(outcome.deliveries == [
            delivery(.callEndedMessageReceived(call: ended, by: bob, reason: .hungUp), a + [b[0]]),
            delivery(.callEnded(sessionId: ringing.sessionId), a + [b[0]]),
        ])
        #expect(f.core.activeSessionCount == 0)
        #expect(f.core.sessionHistory(ringing.sessionId)?.endedAt == t0 + 42)
        #expect(f.leave(ringing.sessionId, from: a[0]).errorCode == .callEnded)
    }

    @Test func aCallWhoseSessionNobodyJoinedSendsNoCallEnded() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.accept(ringing.sessionId, from: b[0])
        let outcome = f.end(ringing.sessionId, from: a[0])
        #expect(outcome.deliveries.map(\.push.event) == [.onCallEndedMessageReceived])
        #expect(f.core.sessionHistory(ringing.sessionId) == nil)
    }

    @Test func aGroupParticipantWhoEndsAGoingCallLeavesItsSession() throws {
        f.group("team", ["alice", "bob", "carol"])
        let ringing = try #require(f.call("team", from: a[0], type: .group).call)
        _ = f.accept(ringing.sessionId, from: b[0])
        let ongoing = try #require(f.accept(ringing.sessionId, from: c[0]).call)
        for device in [a[0], b[0], c[0]] {
            _ = f.join(ringing.sessionId, from: device)
        }
        let outcome = f.end(ringing.sessionId, from: a[1])
        #expect(outcome.deliveries == [
            delivery(.userLeft(sessionId: ringing.sessionId, user: alice), b + c),
            delivery(.userListChanged(sessionId: ringing.sessionId, participants: [
                Fixture.participant("bob", joinedAt: t0), Fixture.participant("carol", joinedAt: t0),
            ]), b + c),
            delivery(.callEndedMessageReceived(call: ongoing, by: alice, reason: .hungUp), [a[0]]),
        ])
        #expect(f.mute(ringing.sessionId, audio: true, from: a[0]).errorCode == .notParticipant)
        #expect(f.core.activeSessionCount == 1)
    }

    @Test func cancellingWhileTheCallerIsInTheSessionEndsIt() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.join(ringing.sessionId, from: a[0])
        let outcome = f.reject(ringing.sessionId, .cancelled, from: a[1])
        let cancelled = try #require(outcome.call)
        #expect(outcome.deliveries == [
            delivery(.incomingCallCanceled(call: cancelled, reason: .cancelled), b),
            delivery(.callEnded(sessionId: ringing.sessionId), [a[0]]),
        ])
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func aDeclineWhileTheCallerIsInTheSessionEndsIt() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.join(ringing.sessionId, from: a[0])
        let outcome = f.reject(ringing.sessionId, .busy, from: b[0])
        let busy = try #require(outcome.call)
        #expect(outcome.deliveries == [
            delivery(.outgoingCallRejected(call: busy, by: bob), a),
            delivery(.incomingCallCanceled(call: busy, reason: .rejectedElsewhere), [b[1]]),
            delivery(.callEnded(sessionId: ringing.sessionId), a),
        ])
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func theLastGroupDeclineEndsTheSessionToo() throws {
        f.group("pair", ["alice", "bob"])
        let ringing = try #require(f.call("pair", from: a[0], type: .group).call)
        _ = f.join(ringing.sessionId, from: a[0])
        let outcome = f.reject(ringing.sessionId, .rejected, from: b[0])
        #expect(outcome.deliveries.map(\.push.event) == [
            .onOutgoingCallRejected, .onIncomingCallCanceled, .onCallEnded,
        ])
        #expect(outcome.deliveries.last == delivery(.callEnded(sessionId: ringing.sessionId), a))
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func aRingTimeoutWhileTheCallerIsInTheSessionEndsIt() throws {
        let ringing = try #require(f.call("bob", from: a[0], timeout: 20).call)
        _ = f.join(ringing.sessionId, from: a[0])
        f.advance(seconds: 20)
        let deliveries = f.fireDueTimers()
        #expect(deliveries.map(\.push.event) == [.onOutgoingCallRejected, .onIncomingCallCanceled, .onCallEnded])
        #expect(deliveries.last == delivery(.callEnded(sessionId: ringing.sessionId), a))
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func aVanishedCallerEndsTheSessionWhenTheCallIsCancelled() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        _ = f.join(ringing.sessionId, from: a[0])
        _ = f.disconnect(a[0])
        _ = f.disconnect(a[1])
        f.advance(seconds: 10)
        #expect(f.fireDueTimers().map(\.push.event) == [.onIncomingCallCanceled])
        #expect(f.core.activeSessionCount == 0)
        f.advance(seconds: 60)
        #expect(f.fireDueTimers().isEmpty)
    }
}
