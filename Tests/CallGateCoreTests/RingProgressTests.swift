@testable import CallGateCore
import CallGateProtocol
import Testing

/// Ring progress: callee devices confirm a ring, the caller's devices hear the counts, coalesced,
/// only while the call rings. alice (2 devices) rings bob (2 devices); carol is a bystander.
@Suite struct RingProgressTests {
    let f = Fixture(CoreConfiguration(ringProgressInterval: .milliseconds(250)))
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: ConnectionID

    init() {
        a = f.devices("alice", 2)
        b = f.devices("bob", 2)
        c = f.connect("carol")
    }

    private func ring(timeout: Int? = nil) throws -> Call {
        try #require(f.call("bob", from: a[0], timeout: timeout).call)
    }

    private func progress(_ devices: Int, users: Int, ringing: Int = 1, waking: Int = 0) -> RingProgress {
        RingProgress(devices: devices, users: users, ringing: ringing, waking: waking)
    }

    @Test func aConfirmedRingIsToldToEveryDeviceOfTheCallerAtOnce() throws {
        let call = try ring()
        let confirmed = f.confirmRinging(call.sessionId, from: b[1])
        #expect(confirmed.call == call)
        #expect(confirmed.deliveries.isEmpty)
        #expect(f.core.nextDeadline == f.core.monotonicNow)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(1, users: 1)), a)])
    }

    @Test func confirmsWithinTheIntervalAreToldInOnePushAtItsEnd() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        #expect(f.fireDueTimers().count == 1)
        f.advance(millis: 100)
        _ = f.confirmRinging(call.sessionId, from: b[1])
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 149)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(2, users: 1)), a)])
    }

    @Test func confirmingAgainFromTheSameDeviceChangesNothing() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        _ = f.fireDueTimers()
        f.advance(seconds: 1)
        let again = f.confirmRinging(call.sessionId, from: b[0])
        #expect(again.call == call)
        f.advance(seconds: 1)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func aConfirmedDeviceGoingAwayIsToldAndAnAnswerStopsThePushes() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        _ = f.confirmRinging(call.sessionId, from: b[1])
        _ = f.fireDueTimers()
        f.advance(seconds: 1)
        #expect(f.disconnect(b[0]) == [delivery(.outgoingCallRinging(call: call, progress: progress(1, users: 1)), a)])
        let answered = f.accept(call.sessionId, from: b[1])
        #expect(answered.call?.callStatus == .ongoing)
        f.advance(seconds: 1)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func nothingIsToldOnceTheCallStoppedRinging() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        _ = f.reject(call.sessionId, .rejected, from: b[1])
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func whoMayConfirm() throws {
        let call = try ring()
        #expect(f.confirmRinging(call.sessionId, from: a[1]).errorCode == .notParticipant)
        #expect(f.confirmRinging(call.sessionId, from: c).errorCode == .notParticipant)
        #expect(f.confirmRinging("v1.nope", from: b[0]).errorCode == .callNotFound)
        #expect(f.confirmRinging("bad id!", from: b[0]).errorCode == .invalidSessionID)
        #expect(f.confirmRinging(call.sessionId, from: ConnectionID(999)).errorCode == .userNotLoggedIn)
        _ = f.accept(call.sessionId, from: b[0])
        #expect(f.confirmRinging(call.sessionId, from: b[1]).errorCode == .callAlreadyJoined)
        _ = f.end(call.sessionId, from: a[0])
        #expect(f.confirmRinging(call.sessionId, from: b[1]).errorCode == .callEnded)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func aGroupCallIsToldInTotalsAndADeclineCounts() throws {
        f.group("team", ["alice", "bob", "carol", "dave"])
        let d = f.connect("dave")
        let call = try #require(f.call("team", from: a[0], type: .group).call)
        _ = f.confirmRinging(call.sessionId, from: b[0])
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(1, users: 1, ringing: 3)), a)])
        _ = f.confirmRinging(call.sessionId, from: c)
        _ = f.confirmRinging(call.sessionId, from: d)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 250)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(3, users: 3, ringing: 3)), a)])
        _ = f.reject(call.sessionId, .rejected, from: d)
        #expect(f.confirmRinging(call.sessionId, from: d).errorCode == .callRejected)
        f.advance(millis: 250)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(2, users: 2, ringing: 2)), a)])
    }

    @Test func aCalleeWithNoDeviceIsToldAsWokenUntilADeviceConfirms() throws {
        f.core.reportsWebhookEvents = true
        let call = try #require(f.call("erin", from: a[0]).call)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(0, users: 0, waking: 1)), a)])
        let e = f.connect("erin")
        _ = f.confirmRinging(call.sessionId, from: e)
        f.advance(millis: 250)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress(1, users: 1)), a)])
    }

    @Test func whileNoEndpointWantsRingingEventsNobodyIsWoken() throws {
        f.core.reportsWebhookEvents = true
        f.core.wakesCalleesByPush = false
        _ = try #require(f.call("erin", from: a[0]).call)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.webhookEvents.contains { $0.type == .callRinging }, "the event is still reported")
    }

    @Test func withoutWebhooksNobodyIsWokenAndNothingIsTold() throws {
        f.core.reportsWebhookEvents = false
        _ = try #require(f.call("erin", from: a[0]).call)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func aDeviceThatComesBackOnANewConnectionKeepsItsConfirmation() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        _ = f.confirmRinging(call.sessionId, from: b[1])
        _ = f.fireDueTimers()
        f.advance(seconds: 1)
        let (successor, _) = f.reconnect("bob", previous: b[0])
        #expect(f.fireDueTimers().isEmpty)
        _ = f.confirmRinging(call.sessionId, from: successor)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.disconnect(successor) == [delivery(.outgoingCallRinging(call: call, progress: progress(1, users: 1)), a)])
    }

    @Test func aDeviceCyclingThroughConnectAndConfirmIsToldEverLessOften() throws {
        let call = try ring(timeout: 300)
        var told: [Int64] = []
        for _ in 0..<2_400 {
            let device = f.connect("bob")
            _ = f.confirmRinging(call.sessionId, from: device)
            if !f.fireDueTimers().isEmpty {
                told.append(f.nowMillis)
            }
            if !f.disconnect(device).isEmpty {
                told.append(f.nowMillis)
            }
            f.advance(millis: 125)
        }
        // 300 s of a confirm every 125 ms: 8 pushes 250 ms apart, then ever longer gaps up to 8 s.
        #expect(told.count < 60)
        let gaps = zip(told.dropFirst(), told).map { $0 - $1 }
        #expect(gaps.suffix(10).allSatisfy { $0 >= 8_000 })
    }

    @Test func aFinishedCallLeavesNoProgressTimerBehind() throws {
        let call = try ring()
        _ = f.confirmRinging(call.sessionId, from: b[0])
        _ = f.fireDueTimers()
        _ = f.confirmRinging(call.sessionId, from: b[1])
        _ = f.reject(call.sessionId, .cancelled, from: a[0])
        #expect(f.core.nextDeadline == Fixture.start + 300_000, "only the finished call's retention is left")
    }

    @Test func aCallLoggedBeforeItsRingExpiryWasKeptGetsOneWhenRestored() throws {
        var record = CallLogRecord(
            id: 7, sessionId: "old", callCategory: .call, callType: .audio, callStatus: .ongoing,
            initiator: Fixture.user("alice"), receiver: .user(Fixture.user("bob")), initiatedAt: Fixture.t0,
            startedAt: Fixture.t0 + 3,
            participants: [Fixture.entry("alice", .joined, joinedAt: Fixture.t0 + 3, stay: Fixture.t0 + 3),
                           Fixture.entry("bob", .joined, joinedAt: Fixture.t0 + 3, stay: Fixture.t0 + 3)])
        let restored = Fixture()
        restored.restore(openCalls: [record], lastCallID: 7)
        #expect(restored.core.activeCalls(of: "bob").first?.ringExpiresAt == Fixture.t0 + 45)
        record.id = 8
        record.sessionId = "ringing"
        record.callStatus = .initiated
        record.startedAt = nil
        record.ringDeadline = Fixture.start + 20_500
        record.participants = [Fixture.entry("alice", .joined), Fixture.entry("bob", .ringing)]
        let again = Fixture()
        again.restore(openCalls: [record], lastCallID: 8)
        #expect(again.core.activeCalls(of: "bob").first?.ringExpiresAt == Fixture.t0 + 21)
        #expect(again.core.activeCalls(of: "bob").first?.callUUID == CallUUID.of(sessionId: "ringing"))
    }

    @Test func aCallCarriesItsUUIDAndRingDeadlineForItsWholeLife() throws {
        let call = try #require(f.call("bob", from: a[0], timeout: 30).call)
        #expect(call.callUUID == CallUUID.of(sessionId: call.sessionId))
        #expect(call.ringExpiresAt == call.initiatedAt + 30)
        f.advance(seconds: 2)
        let answered = try #require(f.accept(call.sessionId, from: b[0]).call)
        #expect(answered.callUUID == call.callUUID)
        #expect(answered.ringExpiresAt == call.ringExpiresAt)
        let logged = try #require(f.loggedChanges.values.first { $0.sessionId == call.sessionId })
        #expect(logged.ringExpiresAt == call.ringExpiresAt)
        #expect(logged.log(for: "bob", at: f.nowSeconds).callUUID == call.callUUID)
    }

    @Test func aRingDeadlineBetweenSecondsIsRoundedUp() throws {
        f.advance(millis: 400)
        let call = try #require(f.call("bob", from: a[0], timeout: 10).call)
        #expect(call.ringExpiresAt == (Fixture.start + 400 + 10_000 + 999) / 1000)
    }
}

/// The call UUID is RFC 4122's name-based version 5 of the session id.
@Suite struct CallUUIDTests {
    /// Python's `uuid.uuid5(UUID("6f1c2a5e-930b-4d71-a844-2e0d5bc3971f"), name)`.
    @Test(arguments: [
        ("v1.00000000000000000000000000000001", "fd3735eb-1035-5af9-9176-602f9171ec1d"),
    ])
    func matchesAnIndependentImplementation(sessionId: String, expected: String) {
        #expect(CallUUID.of(sessionId: sessionId) == expected)
    }

    @Test func isLowercaseVersion5AndFixed() {
        let uuid = CallUUID.of(sessionId: "c.6Jm2Qx9vRk4tB8wLnZ3pY7aHdF0sGe1U")
        #expect(uuid == CallUUID.of(sessionId: "c.6Jm2Qx9vRk4tB8wLnZ3pY7aHdF0sGe1U"))
        #expect(uuid == "1bb15df2-a56f-53f5-a1ab-36a2ac130f54")
        #expect(uuid != CallUUID.of(sessionId: "c.6Jm2Qx9vRk4tB8wLnZ3pY7aHdF0sGe1V"))
    }
}
