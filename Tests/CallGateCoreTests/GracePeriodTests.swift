@testable import CallGateCore
import CallGateProtocol
import Testing

@Suite struct GracePeriodTests {
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let carol = Fixture.user("carol")

    @Test func aVanishedCallerIsCancelledAfterTheGracePeriod() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.devices("bob", 2)
        let ringing = try #require(f.call("bob", from: a).call)
        f.advance(seconds: 1)
        #expect(f.disconnect(a).isEmpty)
        #expect(f.core.nextDeadline == Fixture.start + 11_000)
        f.advance(millis: 9_999)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        var call = ringing
        call.callStatus = .cancelled
        call.endedAt = Fixture.start / 1000 + 11
        #expect(f.fireDueTimers() == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), b)])
        #expect(f.core.activeCallCount == 0)
        #expect(f.accept(ringing.sessionId, from: b[0]).errorCode == .callCancelled)
        #expect(f.connect(a, user: alice).isEmpty)
    }

    @Test func aCallerWithAnotherDeviceLeftHasNoGracePeriod() throws {
        let f = Fixture()
        let a = f.devices("alice", 2)
        f.connect("bob")
        _ = try #require(f.call("bob", from: a[0]).call)
        _ = f.disconnect(a[0])
        #expect(f.core.nextDeadline == Fixture.start + 45_000)
    }

    @Test func aCallerWhoReconnectsInTimeKeepsTheCall() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.disconnect(a)
        f.advance(seconds: 9)
        let back = ConnectionID(50)
        #expect(f.connect(back, user: alice) == [ringing])
        #expect(f.core.nextDeadline == Fixture.start + 45_000)
        f.advance(seconds: 5)
        #expect(f.fireDueTimers().isEmpty)
        let accepted = f.accept(ringing.sessionId, from: b)
        let call = try #require(accepted.call)
        #expect(accepted.deliveries == [delivery(.outgoingCallAccepted(call: call, by: bob), [back])])
    }

    @Test func aZeroGracePeriodActsOnDisconnect() throws {
        let f = Fixture(CoreConfiguration(callerGracePeriod: .zero))
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        let deliveries = f.disconnect(a)
        var call = ringing
        call.callStatus = .cancelled
        call.endedAt = ringing.initiatedAt
        #expect(deliveries == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), [b])])
    }

    @Test func anAnswerWhileTheCallerIsGoneSwitchesToTheParticipantGracePeriod() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.devices("bob", 2)
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.disconnect(a)
        f.advance(seconds: 5)
        let accepted = f.accept(ringing.sessionId, from: b[0])
        #expect(accepted.deliveries.map(\.push.event) == [.onIncomingCallCanceled])
        #expect(f.core.nextDeadline == Fixture.start + 35_000)
        f.advance(seconds: 29)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(seconds: 1)
        let deliveries = f.fireDueTimers()
        var call = try #require(accepted.call)
        call.callStatus = .ended
        call.endedAt = f.nowSeconds
        #expect(deliveries == [
            delivery(.callEndedMessageReceived(call: call, by: alice, reason: .disconnected), b),
        ])
    }

    @Test func aVanishedParticipantEndsTheCallAfterTheGracePeriod() throws {
        let f = Fixture()
        let a = f.devices("alice", 2)
        let b = f.devices("bob", 2)
        let ringing = try #require(f.call("bob", from: a[0]).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b[0]).call)
        #expect(f.disconnect(b[0]).isEmpty)
        #expect(f.core.nextDeadline == nil)
        #expect(f.disconnect(b[1]).isEmpty)
        #expect(f.core.nextDeadline == Fixture.start + 30_000)
        f.advance(millis: 29_999)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        var call = ongoing
        call.callStatus = .ended
        call.endedAt = f.nowSeconds
        #expect(f.fireDueTimers() == [
            delivery(.callEndedMessageReceived(call: call, by: bob, reason: .disconnected), a),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.call("carol", from: a[1]).call?.callStatus == .initiated)
    }

    @Test func aParticipantWhoReconnectsInTimeStays() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        _ = f.disconnect(b)
        f.advance(seconds: 29)
        #expect(f.connect(ConnectionID(77), user: bob) == [ongoing])
        f.advance(seconds: 60)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.activeCallCount == 1)
    }

    @Test func bothParticipantsVanishing() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.accept(ringing.sessionId, from: b)
        _ = f.disconnect(a)
        f.advance(seconds: 1)
        _ = f.disconnect(b)
        f.advance(seconds: 40)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.nextDeadline == Fixture.start + 41_000 + 300_000)
    }

    @Test func aRingingCalleeDisconnectingChangesNothing() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        _ = try #require(f.call("bob", from: a).call)
        #expect(f.disconnect(b).isEmpty)
        #expect(f.core.nextDeadline == Fixture.start + 45_000)
    }

    @Test func aVanishedGroupParticipantLeavesAndTheLastDepartureEndsTheCall() throws {
        let f = Fixture()
        f.group("team", ["alice", "bob", "carol", "dave"])
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.devices("carol", 2)
        let d = f.connect("dave")
        let ringing = try #require(f.call("team", from: a, type: .group, timeout: 300).call)
        _ = f.accept(ringing.sessionId, from: b)
        let ongoing = try #require(f.accept(ringing.sessionId, from: c[0]).call)

        _ = f.disconnect(c[0])
        _ = f.disconnect(c[1])
        f.advance(seconds: 30)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.activeCalls(of: "bob") == [ongoing])

        _ = f.disconnect(b)
        f.advance(seconds: 30)
        var call = ongoing
        call.callStatus = .ended
        call.endedAt = f.nowSeconds
        #expect(f.fireDueTimers() == [
            delivery(.callEndedMessageReceived(call: call, by: bob, reason: .disconnected), [a]),
            delivery(.incomingCallCanceled(call: call, reason: .ended), [d]),
        ])
    }
}
