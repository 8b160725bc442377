@testable import CallGateCore
import CallGateProtocol
import Testing

/// What the app's backend does to calls through the admin API: ring on a user's behalf, end a
/// call for everyone, mute or remove a participant. alice has 2 devices, bob and carol one each.
@Suite struct ServerControlTests {
    let f = Fixture(CoreConfiguration(maxCallsPerMinute: 1))
    let a: [ConnectionID]
    let b: ConnectionID
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")

    init() {
        a = f.devices("alice", 2)
        b = f.connect("bob")
        c = f.connect("carol")
    }

    @Test func aRingOnBehalfOfAConnectedUserShowsOnEveryDeviceOfTheirs() throws {
        let call = try #require(f.ringOnBehalf(of: "alice", "bob").call)
        #expect(call.initiator == alice, "a connected initiator is shown as their device says")
        #expect(call.callStatus == .initiated)
        let progress = RingProgress(devices: 0, users: 0, ringing: 1, waking: 0)
        #expect(f.fireDueTimers() == [delivery(.outgoingCallRinging(call: call, progress: progress), a)])
        let answered = try #require(f.accept(call.sessionId, from: b).call)
        #expect(answered.callStatus == .ongoing)
        #expect(f.core.engagingCall(of: "alice")?.sessionId == call.sessionId)
        #expect(f.core.activeCalls(of: "alice") == [answered])
    }

    @Test func theBackendRingsAnyGroupOnBehalfOfAnOfflineUserWithoutSpendingTheirCallStarts() throws {
        f.group("desk", ["bob", "carol"])
        let door = User(uid: "door-1", name: "Front door")
        let first = try #require(f.ringOnBehalf(of: "door-1", profile: door, "desk", type: .group).call)
        #expect(first.initiator == door && first.receiverType == .group)
        let second = f.ringOnBehalf(of: "door-1", "bob")
        #expect(second.errorCode == .callInProgress, "the initiator is the caller of a ringing call")
        _ = f.endByServer(first.sessionId)
        let third = try #require(f.ringOnBehalf(of: "door-1", "carol").call, "no call start was counted against door-1")
        #expect(third.initiator == User(uid: "door-1", name: "door-1"), "no profile given, none known: the uid")
        #expect(f.ringOnBehalf(of: "bad uid", "bob").errorCode == .badRequest)
        #expect(f.ringOnBehalf(of: "door-2", profile: door, "bob").errorCode == .badRequest, "a profile of another uid")
        #expect(f.ringOnBehalf(of: "bob", "bob").errorCode == .callingSelf)
        #expect(f.ringOnBehalf(of: "alice", "nowhere", type: .group).errorCode == .groupNotFound)
    }

    @Test func endingARingingCallCancelsItForEveryoneWithTheBackendsReason() throws {
        let call = try #require(f.call("bob", from: a[0]).call)
        let ended = f.endByServer(call.sessionId, reason: "Doctor unavailable")
        let final = try #require(ended.call)
        #expect(final.callStatus == .cancelled && final.serverReason == "Doctor unavailable")
        #expect(ended.deliveries == [
            delivery(.callEndedMessageReceived(call: final, by: nil, reason: .endedByServer), a),
            delivery(.incomingCallCanceled(call: final, reason: .endedByServer), [b]),
        ])
        #expect(f.webhookEvents.last?.type == .callCancelled)
        #expect(f.webhookEvents.last?.data.reason == .endedByServer)
        let finished = try #require(f.loggedSteps.values.first?.steps.last)
        #expect(finished.step == .finished && finished.reason == "endedByServer" && finished.serverReason == "Doctor unavailable")
        #expect(f.endByServer(call.sessionId).reply == .failure(.finished(.cancelled)))
    }

    @Test func endingAnAnsweredGroupCallEndsItForItsParticipantsAndStopsTheRest() throws {
        f.group("team", ["alice", "bob", "carol"])
        let call = try #require(f.call("team", from: a[0], type: .group).call)
        _ = f.accept(call.sessionId, from: b)
        let ended = f.endByServer(call.sessionId)
        let final = try #require(ended.call)
        #expect(final.callStatus == .ended && final.serverReason == nil)
        #expect(ended.deliveries == [
            delivery(.callEndedMessageReceived(call: final, by: nil, reason: .endedByServer), a + [b]),
            delivery(.incomingCallCanceled(call: final, reason: .endedByServer), [c]),
        ])
        #expect(f.core.engagingCall(of: "alice") == nil && f.core.engagingCall(of: "bob") == nil)
    }

    @Test func endRefusesHostileReasonsMeetingsAndUnknownCalls() throws {
        let call = try #require(f.call("bob", from: a[0]).call)
        for reason in ["", String(repeating: "x", count: 257), "line\nbreak"] {
            #expect(f.endByServer(call.sessionId, reason: reason).errorCode == .badRequest)
        }
        #expect(f.endByServer(call.sessionId, reason: String(repeating: "é", count: 128)).call != nil)
        _ = f.join("room:1", from: b)
        #expect(f.endByServer("room:1").errorCode == .badRequest)
        #expect(f.endByServer("no such call").errorCode == .invalidSessionID)
        #expect(f.endByServer("v1.unknown").errorCode == .callNotFound)
    }

    @Test func theBackendMutesAndRemovesAnyoneInASessionTheHostIncluded() throws {
        _ = f.join("room:1", from: a[0])
        _ = f.join("room:1", from: b)
        let muted = f.muteByServer("room:1", "alice")
        #expect(muted.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: alice, audioMuted: true, videoMuted: false), a + [b]),
        ])
        #expect(f.muteByServer("room:1", "alice").deliveries.isEmpty, "already muted")
        let removed = f.removeByServer("room:1", "bob")
        #expect(removed.session?.participants.map(\.uid) == ["alice"])
        #expect(removed.deliveries.first == delivery(.removedFromCall(sessionId: "room:1", by: nil), [b]))
        #expect(f.webhookEvents.suffix(2).first.map { $0.type == .participantRemoved && $0.data.by == nil } == true)
        #expect(f.join("room:1", from: b).errorCode == .notParticipant, "a removed user may not come back")
        #expect(f.muteByServer("room:1", "carol").errorCode == .notParticipant)
        #expect(f.muteByServer("room:1", "bad uid").errorCode == .badRequest)
        #expect(f.removeByServer("room:2", "bob").errorCode == .callNotFound)
        let call = try #require(f.call("carol", from: b).call)
        #expect(f.muteByServer(call.sessionId, "bob").errorCode == .notParticipant, "nobody joined its session")
    }
}
