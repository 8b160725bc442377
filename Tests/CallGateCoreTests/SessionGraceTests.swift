import CallGateCore
import CallGateProtocol
import Testing

/// A session participant whose joined devices all disconnected is removed after the
/// participant grace period (30 s) unless a device of theirs joins again.
@Suite struct SessionGraceTests {
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

    @Test func aVanishedParticipantIsRemovedAfterTheGracePeriod() throws {
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        #expect(f.disconnect(b).isEmpty)
        #expect(f.core.nextDeadline == Fixture.start + 30_000)
        f.advance(millis: 29_999)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        #expect(f.fireDueTimers() == [
            delivery(.userLeft(sessionId: "room:1", user: bob), [a]),
            delivery(.userListChanged(sessionId: "room:1", participants: [Fixture.participant("alice", joinedAt: t0)]), [a]),
        ])
        #expect(f.core.activeSessionCount == 1)
        #expect(f.core.nextDeadline == Fixture.start + 30_000 + 180_000)
    }

    @Test func reconnectingAloneDoesNotRejoin() throws {
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        _ = f.disconnect(b)
        f.advance(seconds: 10)
        let back = f.connect("bob")
        f.advance(seconds: 20)
        #expect(f.fireDueTimers().map(\.push.event) == [.onUserLeft, .onUserListChanged])
        #expect(f.mute("room:1", audio: true, from: back).errorCode == .notParticipant)
    }

    @Test func joiningAgainBeforeTheDeadlineKeepsTheParticipant() throws {
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        _ = f.disconnect(b)
        f.advance(seconds: 29)
        let back = f.connect("bob")
        let rejoin = f.join("room:1", from: back)
        #expect(rejoin.deliveries.isEmpty)
        #expect(rejoin.session?.participants == [
            Fixture.participant("alice", joinedAt: t0), Fixture.participant("bob", joinedAt: t0),
        ])
        #expect(f.core.nextDeadline == nil)
        f.advance(seconds: 60)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.nextDeadline == nil)
        #expect(f.core.sessionHistory("room:1")?.participants.map(\.totalSeconds) == [89, 89])
    }

    @Test func anotherJoinedDeviceKeepsTheParticipantIn() throws {
        let b2 = f.connect("bob")
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        _ = f.join("room:1", from: b2)
        _ = f.disconnect(b)
        #expect(f.core.nextDeadline == nil)
    }

    @Test func theLastVanishedParticipantEndsAStandaloneSession() throws {
        _ = f.join("room:1", from: a)
        _ = f.disconnect(a)
        f.advance(seconds: 30)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.activeSessionCount == 0)
        #expect(f.core.sessionHistory("room:1")?.endedAt == t0 + 30)
    }

    @Test func aZeroGracePeriodRemovesOnDisconnect() throws {
        let g = Fixture(CoreConfiguration(participantGracePeriod: .zero))
        let x = g.connect("alice")
        let y = g.connect("bob")
        _ = g.join("room:1", from: x)
        _ = g.join("room:1", from: y)
        #expect(g.disconnect(y) == [
            delivery(.userLeft(sessionId: "room:1", user: bob), [x]),
            delivery(.userListChanged(sessionId: "room:1", participants: [Fixture.participant("alice", joinedAt: t0)]), [x]),
        ])
    }

    @Test func aVanishedParticipantOfADirectCallEndsIt() throws {
        let ringing = try #require(f.call("bob", from: a).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        _ = f.join(ringing.sessionId, from: a)
        _ = f.join(ringing.sessionId, from: b)
        _ = f.disconnect(b)
        f.advance(seconds: 10)
        let back = f.connect("bob")
        f.advance(seconds: 20)
        var ended = ongoing
        ended.callStatus = .ended
        ended.endedAt = t0 + 30
        #expect(f.fireDueTimers() == [
            delivery(.userLeft(sessionId: ringing.sessionId, user: bob), [a]),
            delivery(.userListChanged(sessionId: ringing.sessionId,
                                      participants: [Fixture.participant("alice", joinedAt: t0)]), [a]),
            delivery(.callEndedMessageReceived(call: ended, by: bob, reason: .disconnected), [a, back]),
            delivery(.callEnded(sessionId: ringing.sessionId), [a, back]),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func whenBothGracePeriodsRunTheSessionOneGoesFirstAndTheCallEndsOnce() throws {
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.accept(ringing.sessionId, from: b)
        _ = f.join(ringing.sessionId, from: a)
        _ = f.join(ringing.sessionId, from: b)
        _ = f.disconnect(b)
        f.advance(seconds: 30)
        #expect(f.fireDueTimers().map(\.push.event) == [
            .onUserLeft, .onUserListChanged, .onCallEndedMessageReceived, .onCallEnded,
        ])
        f.advance(seconds: 300)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.nextDeadline == nil)
    }
}
