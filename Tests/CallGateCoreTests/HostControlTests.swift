@testable import CallGateCore
import CallGateProtocol
import Testing

/// muteParticipant and removeParticipant. alice (2 devices, joined from the first) started the
/// meeting "room:1", so she hosts it; bob and carol joined it after her.
@Suite struct HostControlTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: ConnectionID
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let carol = Fixture.user("carol")
    let t0 = Fixture.t0

    init() {
        a = f.devices("alice", 2)
        b = f.connect("bob")
        c = f.connect("carol")
        _ = f.join("room:1", from: a[0])
        _ = f.join("room:1", from: b)
        _ = f.join("room:1", from: c)
    }

    @Test func theHostMutesAParticipantAndEveryoneElseHearsWhoDidIt() {
        let muted = f.muteParticipant("room:1", "bob", from: a[0])
        #expect(muted.session?.participants.map(\.audioMuted) == [false, true, false])
        #expect(muted.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: bob, audioMuted: true, videoMuted: false, mutedBy: alice), [a[1], b, c]),
        ])
        #expect(f.muteParticipant("room:1", "bob", from: a[0]).deliveries.isEmpty)
        let unmuted = f.mute("room:1", audio: false, from: b)
        #expect(unmuted.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: bob, audioMuted: false, videoMuted: false), [a[0], a[1], c]),
        ])
    }

    @Test func onlyTheHostMayMuteOrRemoveAndNeverThemself() {
        #expect(f.muteParticipant("room:1", "carol", from: b).reply == .failure(.notHost))
        #expect(f.removeParticipant("room:1", "alice", from: b).reply == .failure(.notHost))
        #expect(f.muteParticipant("room:1", "alice", from: a[0]).reply
            == .failure(.badRequest("data.uid: that is you; use setMuted")))
        #expect(f.removeParticipant("room:1", "alice", from: a[0]).reply
            == .failure(.badRequest("data.uid: that is you; use leaveSession")))
        #expect(f.muteParticipant("room:1", "dave", from: a[0]).errorCode == .notParticipant)
        #expect(f.removeParticipant("room:1", "../\u{0}x", from: a[0]).reply
            == .failure(.badRequest("data.uid: \(FieldRules.idRuleDescription)")))
        #expect(f.muteParticipant("room:1", "bob", from: a[1]).reply == .failure(.notJoined))
        #expect(f.muteParticipant("room:2", "bob", from: a[0]).errorCode == .callNotFound)
    }

    @Test func aRemovedParticipantIsToldTheOthersSeeThemLeaveAndTheyCannotComeBack() {
        let removed = f.removeParticipant("room:1", "bob", from: a[0])
        #expect(removed.session?.participants.map(\.uid) == ["alice", "carol"])
        #expect(removed.deliveries.first == delivery(.removedFromCall(sessionId: "room:1", by: alice), [b]))
        #expect(removed.deliveries.contains(delivery(.userLeft(sessionId: "room:1", user: bob), [a[0], a[1], c])))
        #expect(!removed.deliveries.contains { $0.connections.contains(b) && $0.push.event != .onRemovedFromCall })
        #expect(f.webhookEvents.suffix(2).map(\.type) == [.participantRemoved, .participantLeft])
        #expect(f.webhookEvents.suffix(2).first?.data.by == alice)
        #expect(f.join("room:1", from: b).reply
            == .failure(.notParticipant("the host removed you from this session")))
        #expect(f.mute("room:1", audio: true, from: b).reply == .failure(.notJoined))
    }

    @Test func removingTheOtherEndOfAOneToOneCallEndsIt() throws {
        let d = f.connect("dave")
        let call = try #require(f.call("dave", from: c).call)
        _ = f.accept(call.sessionId, from: d)
        _ = f.join(call.sessionId, from: c)
        _ = f.join(call.sessionId, from: d)
        #expect(f.removeParticipant(call.sessionId, "carol", from: d).reply == .failure(.notHost))
        let removed = f.removeParticipant(call.sessionId, "dave", from: c)
        #expect(removed.session?.participants == [])
        #expect(removed.deliveries.first == delivery(.removedFromCall(sessionId: call.sessionId, by: carol), [d]))
        let ended = removed.deliveries.compactMap { sent -> EndReason? in
            if case .callEndedMessageReceived(let ended, _, let reason) = sent.push, ended.callStatus == .ended { return reason }
            return nil
        }
        #expect(ended == [.removed])
        #expect(f.join(call.sessionId, from: d).errorCode == .callEnded)
    }
}

/// sendSessionEvent. alice (2 devices, joined from the first) and bob are in "room:1"; carol is
/// connected but not in it.
@Suite struct SessionEventTests {
    let f = Fixture(CoreConfiguration(maxSessionEventBytes: 64, maxSessionEventDepth: 3, maxSessionEventsPerWindow: 3))
    let a: [ConnectionID]
    let b: ConnectionID
    let c: ConnectionID
    let bob = Fixture.user("bob")

    init() {
        a = f.devices("alice", 2)
        b = f.connect("bob")
        c = f.connect("carol")
        _ = f.join("room:1", from: a[0])
        _ = f.join("room:1", from: b)
    }

    @Test func anEventReachesEveryOtherDeviceInTheSessionAndIsNotLogged() throws {
        _ = f.changes()
        let sent = f.sendSessionEvent("room:1", type: "reaction", data: .object(["emoji": .string("👏")]), from: b)
        #expect(sent.reply == .success(SessionEventResult(sessionId: "room:1", type: "reaction", participants: 2)))
        #expect(sent.deliveries == [
            delivery(.sessionEvent(sessionId: "room:1", type: "reaction", data: .object(["emoji": .string("👏")]), user: bob), a),
        ])
        #expect(sent.outcome.logChanges.isEmpty)
        #expect(sent.outcome.webhookEvents.isEmpty)
        #expect(f.changes().isEmpty)
    }

    @Test func typeAndDataAreBounded() {
        let badType = CoreError.badRequest("data.type: \(FieldRules.eventTypeRuleDescription)")
        for type in ["", String(repeating: "t", count: 65), "raise hand", "✋", "a\"b"] {
            #expect(f.sendSessionEvent("room:1", type: type, from: b).reply == .failure(badType))
        }
        #expect(f.sendSessionEvent("room:1", type: String(repeating: "t", count: 64), from: b).errorCode == nil)
        #expect(f.sendSessionEvent("room:1", type: "t", data: .array([.array([.array([.array([])])])]), from: b).reply
            == .failure(.badRequest("data.data: nests deeper than 3 levels")))
        #expect(f.sendSessionEvent("room:1", type: "t", data: .string(String(repeating: "x", count: 63)), from: b).reply
            == .failure(.badRequest("data.data: larger than 64 bytes of JSON")))
        #expect(f.sendSessionEvent("room:1", type: "t", data: .string(String(repeating: "x", count: 62)), from: b).errorCode == nil)
    }

    @Test func onlyJoinedDevicesSendAndEachUserHasABudgetPerTenSeconds() {
        #expect(f.sendSessionEvent("room:1", type: "t", from: c).reply == .failure(.notJoined))
        #expect(f.sendSessionEvent("room:1", type: "t", from: a[1]).reply == .failure(.notJoined))
        #expect(f.sendSessionEvent("room:9", type: "t", from: b).errorCode == .callNotFound)
        for _ in 0..<3 {
            #expect(f.sendSessionEvent("room:1", type: "t", from: b).errorCode == nil)
        }
        #expect(f.sendSessionEvent("room:1", type: "t", from: b).reply == .failure(.sessionEventsRateLimited(3)))
        #expect(f.sendSessionEvent("room:1", type: "t", from: a[0]).errorCode == nil)
        f.advance(seconds: 10)
        #expect(f.sendSessionEvent("room:1", type: "t", from: b).errorCode == nil)
    }
}
