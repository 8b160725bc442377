import CallGateCore
import CallGateProtocol
import Testing

/// A device back on a new connection that names its previous one takes over the sessions it
/// had joined: within the grace period after a disconnect, or at once from a connection the
/// server still holds (a socket that dropped without a close). The others see nothing.
@Suite struct TakeOverTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID

    init() {
        a = f.connect("alice")
        b = f.connect("bob")
    }

    /// Alice and Bob in an answered call, both joined to its session.
    func inCall() throws -> Call {
        let ringing = try #require(f.call("bob", from: a).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        _ = f.join(ringing.sessionId, from: a)
        _ = f.join(ringing.sessionId, from: b)
        return ongoing
    }

    @Test func aDeviceBackWithinTheGracePeriodIsStillInTheCallAndNobodyIsTold() throws {
        let call = try inCall()
        _ = f.disconnect(b)
        f.advance(seconds: 29)
        let (back, arrival) = f.reconnect("bob", previous: b)
        #expect(arrival.deliveries.isEmpty)
        #expect(try arrival.reply.get().activeCalls == [call])
        #expect(try arrival.reply.get().resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(try arrival.reply.get().resumedSessions.first?.participants.map(\.uid) == ["alice", "bob"])
        f.advance(seconds: 600)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.activeCallCount == 1)
        let muted = f.mute(call.sessionId, audio: true, from: back)
        #expect(muted.session?.participants.map(\.uid) == ["alice", "bob"])
        #expect(muted.deliveries.map(\.push.event) == [.onUserMuted])
    }

    @Test func aConnectionStillHeldIsReplacedAndItsSessionsMove() throws {
        let call = try inCall()
        let (back, arrival) = f.reconnect("bob", previous: b)
        #expect(arrival.deliveries.isEmpty)
        #expect(try arrival.reply.get().replaced == b)
        #expect(try arrival.reply.get().resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(f.core.connections(of: "bob") == [back])
        #expect(f.disconnect(b).isEmpty)
        #expect(f.core.nextDeadline == nil)
        #expect(f.mute(call.sessionId, audio: true, from: back).errorCode == nil)
        #expect(f.mute(call.sessionId, audio: true, from: b).errorCode == .userNotLoggedIn)
    }

    @Test func tooLateTheUserHasLeftAndNothingIsResumed() throws {
        _ = try inCall()
        _ = f.disconnect(b)
        f.advance(seconds: 30)
        #expect(f.fireDueTimers().map(\.push.event) == [
            .onUserLeft, .onUserListChanged, .onCallEndedMessageReceived, .onCallEnded,
        ])
        let (_, arrival) = f.reconnect("bob", previous: b)
        #expect(try arrival.reply.get() == Arrival(activeCalls: []))
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func anotherUsersConnectionIsNotTakenOver() throws {
        let call = try inCall()
        let (_, live) = f.reconnect("carol", previous: b)
        #expect(try live.reply.get() == Arrival(activeCalls: []))
        #expect(f.core.connections(of: "bob") == [b])
        _ = f.disconnect(a)
        let (_, departed) = f.reconnect("carol", previous: a)
        #expect(try departed.reply.get().resumedSessions.isEmpty)
        let (_, own) = f.reconnect("alice", previous: a)
        #expect(try own.reply.get().resumedSessions.map(\.sessionId) == [call.sessionId])
    }

    @Test func aDeviceIsTakenOverOnceAndForgottenAfterTheGracePeriod() throws {
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        _ = f.disconnect(b)
        let (first, once) = f.reconnect("bob", previous: b)
        #expect(try once.reply.get().resumedSessions.map(\.sessionId) == ["room:1"])
        let (_, twice) = f.reconnect("bob", previous: b)
        #expect(try twice.reply.get().resumedSessions.isEmpty)
        _ = f.disconnect(first)
        f.advance(seconds: 31)
        #expect(f.fireDueTimers().map(\.push.event) == [.onUserLeft, .onUserListChanged])
        let (_, late) = f.reconnect("bob", previous: first)
        #expect(try late.reply.get().resumedSessions.isEmpty)
    }

    @Test func aSecondDeviceStillJoinedKeepsTheUserInAndTheFirstComesBackBeside() throws {
        let b2 = f.connect("bob")
        _ = f.join("room:1", from: a)
        _ = f.join("room:1", from: b)
        _ = f.join("room:1", from: b2)
        _ = f.disconnect(b)
        let (back, arrival) = f.reconnect("bob", previous: b)
        #expect(try arrival.reply.get().resumedSessions.map(\.sessionId) == ["room:1"])
        #expect(f.leave("room:1", from: b2).deliveries.isEmpty)
        #expect(f.leave("room:1", from: back).deliveries.map(\.push.event) == [.onUserLeft, .onUserListChanged])
    }
}
