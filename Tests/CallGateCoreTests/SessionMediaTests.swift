@testable import CallGateCore
import CallGateProtocol
import Testing

/// setMuted, recording and switchToVideo. alice (2 devices, joined from the first) and bob (1)
/// are in the standalone audio session "room:1"; carol (1) is not.
@Suite struct SessionMediaTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: ConnectionID
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = f.devices("alice", 2)
        b = f.connect("bob")
        c = f.connect("carol")
        _ = f.join("room:1", from: a[0], audioOnly: true)
        _ = f.join("room:1", from: b)
    }

    @Test func muteChangesOnlyTheFieldsGiven() throws {
        let first = f.mute("room:1", audio: true, from: a[0])
        #expect(first.session?.participants == [
            Fixture.participant("alice", joinedAt: t0, audio: true), Fixture.participant("bob", joinedAt: t0),
        ])
        #expect(first.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: alice, audioMuted: true, videoMuted: false), [a[1], b]),
        ])
        let second = f.mute("room:1", video: true, from: a[0])
        #expect(second.session?.participants.first == Fixture.participant("alice", joinedAt: t0, audio: true, video: true))
        #expect(second.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: alice, audioMuted: true, videoMuted: true), [a[1], b]),
        ])
        let third = f.mute("room:1", audio: false, from: a[0])
        #expect(third.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: alice, audioMuted: false, videoMuted: true), [a[1], b]),
        ])
        let restated = f.mute("room:1", from: a[0])
        #expect(restated.session?.participants.first == Fixture.participant("alice", joinedAt: t0, video: true))
        #expect(restated.deliveries.count == 1)
    }

    @Test func muteIsPerUserWhicheverDeviceSetsIt() throws {
        _ = f.join("room:1", from: a[1])
        let outcome = f.mute("room:1", audio: true, video: true, from: a[1])
        #expect(outcome.session?.participants.first == Fixture.participant("alice", joinedAt: t0, audio: true, video: true))
        #expect(outcome.deliveries == [
            delivery(.userMuted(sessionId: "room:1", user: alice, audioMuted: true, videoMuted: true), [a[0], b]),
        ])
    }

    @Test func recordingStartsAndStopsOnce() throws {
        let start = f.record("room:1", true, from: b)
        #expect(start.session?.recording == true)
        #expect(start.deliveries == [
            delivery(.recordingToggled(sessionId: "room:1", recordingStarted: true, user: bob), a),
        ])
        #expect(f.record("room:1", true, from: a[0]).reply == .failure(CoreError(
            code: .badRequest, message: "the session is already being recorded")))
        let stop = f.record("room:1", false, from: a[0])
        #expect(stop.session?.recording == false)
        #expect(stop.deliveries == [
            delivery(.recordingToggled(sessionId: "room:1", recordingStarted: false, user: alice), [a[1], b]),
        ])
        #expect(f.record("room:1", false, from: b).reply == .failure(CoreError(
            code: .badRequest, message: "the session is not being recorded")))
    }

    @Test func switchingToVideoChangesTheSessionOnce() throws {
        let outcome = f.video("room:1", from: b)
        #expect(outcome.session?.callType == .video)
        #expect(outcome.deliveries == [delivery(.callSwitchedToVideo(sessionId: "room:1", requestedBy: bob), a)])
        #expect(f.video("room:1", from: a[0]).reply == .failure(CoreError(
            code: .badRequest, message: "the call is already a video call")))
    }

    @Test func switchingARingingCallToVideoChangesTheCallToo() throws {
        let ringing = try #require(f.call("carol", from: a[1], callType: .audio).call)
        _ = f.accept(ringing.sessionId, from: c)
        _ = f.join(ringing.sessionId, from: a[1])
        _ = f.join(ringing.sessionId, from: c)
        let outcome = f.video(ringing.sessionId, from: c)
        #expect(outcome.session?.callType == .video)
        #expect(outcome.deliveries == [
            delivery(.callSwitchedToVideo(sessionId: ringing.sessionId, requestedBy: Fixture.user("carol")), a),
        ])
        #expect(f.core.activeCalls(of: "alice").map(\.callType) == [.video])
        #expect(f.end(ringing.sessionId, from: a[1]).call?.callType == .video)
    }

    @Test func aVideoCallCannotSwitch() throws {
        let ringing = try #require(f.call("carol", from: a[1], callType: .video).call)
        _ = f.join(ringing.sessionId, from: a[1])
        #expect(f.video(ringing.sessionId, from: a[1]).errorCode == .badRequest)
    }

    @Test func onlyJoinedDevicesMayActOnASession() throws {
        let notJoined = CoreError(code: .notParticipant, message: "you have not joined this session")
        for device in [c, a[1]] {
            #expect(f.mute("room:1", audio: true, from: device).reply == .failure(notJoined))
            #expect(f.record("room:1", true, from: device).reply == .failure(notJoined))
            #expect(f.video("room:1", from: device).reply == .failure(notJoined))
        }
        #expect(f.core.sessionHistory("room:1")?.muteChanges == [])
        #expect(f.core.sessionHistory("room:1")?.recordings == [])
        #expect(f.core.sessionHistory("room:1")?.callType == .audio)
    }

    @Test func unknownMalformedAndUnauthenticated() {
        #expect(f.mute("nope", audio: true, from: a[0]).errorCode == .callNotFound)
        #expect(f.record("nope", true, from: a[0]).errorCode == .callNotFound)
        #expect(f.video("nope", from: a[0]).errorCode == .callNotFound)
        #expect(f.mute("bad id", audio: true, from: a[0]).errorCode == .invalidSessionID)
        #expect(f.record("", false, from: a[0]).errorCode == .invalidSessionID)
        #expect(f.video(String(repeating: "v", count: 129), from: a[0]).errorCode == .invalidSessionID)
        #expect(f.video("room:1", from: ConnectionID(999)).errorCode == .userNotLoggedIn)
    }
}
