import CallGateCore
import CallGateProtocol
import Testing

/// What the Core reports to the app's backend for each call outcome: one `call.initiated`, a
/// `call.ringing` per rung user, per-user answers and declines, exactly one terminal event, and
/// the session's joins, leaves and recordings.
@Suite struct WebhookEventTests {
    /// The events as `type uid` lines (the user, else `by`), for comparing sequences.
    private static func lines(_ events: [WebhookEvent]) -> [String] {
        events.map { event in
            let who = event.data.user?.uid ?? event.data.by.map { "by " + $0.uid }
            return [event.type.rawValue, who].compactMap { $0 }.joined(separator: " ")
        }
    }

    @Test func aCallAnsweredAndHungUp() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.devices("bob", 2)
        let call = try #require(f.call("bob", from: a).call)
        _ = f.accept(call.sessionId, from: b[1])
        _ = f.end(call.sessionId, from: a)
        #expect(Self.lines(f.webhookEvents) == ["call.initiated", "call.ringing bob", "call.accepted bob", "call.ended by alice"])
        let ringing = f.webhookEvents[1].data
        #expect(ringing.onlineDevices == 2)
        #expect(ringing.call == call)
        #expect(f.webhookEvents[2].data.call?.callStatus == .ongoing)
        let ended = f.webhookEvents[3].data
        #expect(ended.call?.callStatus == .ended)
        #expect(ended.reason == .hungUp)
        #expect(f.webhookEvents.allSatisfy { $0.sessionId == call.sessionId })
    }

    /// With no endpoint enabled the Core reports nothing, and the call goes exactly as it
    /// would otherwise: the same pushes, the same log.
    @Test func withoutEndpointsNothingIsReportedAndTheCallGoesTheSame() throws {
        let f = Fixture()
        f.core.reportsWebhookEvents = false
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ring = f.call("bob", from: a)
        let call = try #require(ring.call)
        #expect(ring.deliveries == [delivery(.incomingCallReceived(call: call), [b])])
        _ = f.accept(call.sessionId, from: b)
        let ended = f.end(call.sessionId, from: a)
        #expect(ended.call?.callStatus == .ended)
        #expect(f.webhookEvents.isEmpty)
        #expect(f.loggedChanges.values.map(\.callStatus) == [.ended])
    }

    @Test func aCalleeWithNoDeviceRingsWithNoOnlineDevice() throws {
        let f = Fixture()
        let a = f.connect("alice")
        _ = try #require(f.call("bob", from: a).call)
        #expect(f.webhookEvents.last?.type == .callRinging)
        #expect(f.webhookEvents.last?.data.onlineDevices == 0)
        #expect(f.webhookEvents.last?.data.user?.uid == "bob")
    }

    @Test(arguments: [(RejectStatus.rejected, WebhookEventType.callRejected), (.busy, .callBusy)])
    func aDeclineEndsTheCallWithItsStatus(status: RejectStatus, type: WebhookEventType) throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let call = try #require(f.call("bob", from: a).call)
        _ = f.reject(call.sessionId, status, from: b)
        #expect(Self.lines(f.webhookEvents) == ["call.initiated", "call.ringing bob", "\(type.rawValue) by bob"])
        #expect(f.webhookEvents.last?.data.call?.callStatus.rawValue == status.rawValue)
    }

    @Test func aCalleeInAnotherCallIsBusyWithoutRinging() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let first = try #require(f.call("bob", from: a).call)
        _ = f.accept(first.sessionId, from: b)
        f.webhookEvents.removeAll()
        _ = f.call("bob", from: c)
        #expect(Self.lines(f.webhookEvents) == ["call.initiated", "call.busy by bob"])
    }

    @Test func aCancelAndATimeout() throws {
        let f = Fixture()
        let a = f.connect("alice")
        f.connect("bob")
        let cancelled = try #require(f.call("bob", from: a).call)
        _ = f.reject(cancelled.sessionId, .cancelled, from: a)
        #expect(Self.lines(f.webhookEvents).last == "call.cancelled by alice")
        #expect(f.webhookEvents.last?.data.reason == .hungUp)
        f.webhookEvents.removeAll()
        _ = try #require(f.call("bob", from: a, timeout: 30).call)
        f.advance(seconds: 30)
        _ = f.fireDueTimers()
        #expect(Self.lines(f.webhookEvents) == ["call.initiated", "call.ringing bob", "call.unanswered"])
    }

    @Test func aVanishedCallerCancelsAsDisconnected() throws {
        let f = Fixture(CoreConfiguration(callerGracePeriod: .seconds(5)))
        let a = f.connect("alice")
        f.connect("bob")
        _ = try #require(f.call("bob", from: a).call)
        _ = f.disconnect(a)
        f.advance(seconds: 5)
        _ = f.fireDueTimers()
        #expect(Self.lines(f.webhookEvents).last == "call.cancelled by alice")
        #expect(f.webhookEvents.last?.data.reason == .disconnected)
    }

    @Test func aGroupRingEveryoneDeclines() throws {
        let f = Fixture()
        f.group("team", ["alice", "bob", "carol", "dave"])
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let d = f.connect("dave")
        let call = try #require(f.call("team", from: a, type: .group).call)
        _ = f.reject(call.sessionId, .rejected, from: b)
        _ = f.reject(call.sessionId, .rejected, from: c)
        _ = f.reject(call.sessionId, .rejected, from: d)
        #expect(Self.lines(f.webhookEvents) == [
            "call.initiated", "call.ringing bob", "call.ringing carol", "call.ringing dave",
            "call.declined bob", "call.declined carol", "call.rejected by dave",
        ])
        #expect(f.webhookEvents.filter { WebhookEventType(terminal: $0.data.call?.callStatus ?? .initiated) != nil }.count == 1)
    }

    @Test func aGroupCallAnsweredWhileOthersDeclineOrMissIt() throws {
        let f = Fixture()
        f.group("team", ["alice", "bob", "carol", "dave"])
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        f.connect("dave")
        let call = try #require(f.call("team", from: a, type: .group, timeout: 30).call)
        _ = f.accept(call.sessionId, from: b)
        _ = f.reject(call.sessionId, .rejected, from: c)
        f.advance(seconds: 30)
        _ = f.fireDueTimers()
        _ = f.end(call.sessionId, from: b)
        #expect(Self.lines(f.webhookEvents) == [
            "call.initiated", "call.ringing bob", "call.ringing carol", "call.ringing dave",
            "call.accepted bob", "call.declined carol", "call.missed dave", "call.ended by bob",
        ])
    }

    @Test func sessionJoinsLeavesAndRecordings() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let call = try #require(f.call("bob", from: a).call)
        _ = f.accept(call.sessionId, from: b)
        _ = f.join(call.sessionId, from: a)
        _ = f.join(call.sessionId, from: b)
        _ = f.record(call.sessionId, true, from: a)
        _ = f.record(call.sessionId, false, from: b)
        _ = f.record(call.sessionId, true, from: b)
        f.webhookEvents.removeAll()
        _ = f.end(call.sessionId, from: a)
        #expect(Self.lines(f.webhookEvents) == [
            "session.participant_left alice", "session.participant_left bob", "session.recording_stopped",
            "call.ended by alice",
        ])
        let stopped = try #require(f.webhookEvents[2].data.recording)
        #expect(stopped.rid == "\(call.sessionId)-r2")
        #expect(stopped.endedAt != nil)
    }

    @Test func aMeetingHasNoCall() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        _ = f.join("standup", from: a)
        _ = f.join("standup", from: b)
        _ = f.record("standup", true, from: b)
        _ = f.leave("standup", from: b)
        #expect(Self.lines(f.webhookEvents) == [
            "session.participant_joined alice", "session.participant_joined bob", "session.recording_started bob",
            "session.participant_left bob",
        ])
        #expect(f.webhookEvents.allSatisfy { $0.data.call == nil && $0.sessionId == "standup" })
        #expect(f.webhookEvents[2].data.recording?.endedAt == nil)
    }

    @Test func aRefusedOpReportsNothing() throws {
        let f = Fixture()
        let a = f.connect("alice")
        _ = f.call("alice", from: a)
        _ = f.accept("nope", from: a)
        #expect(f.webhookEvents.isEmpty)
    }
}
