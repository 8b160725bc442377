import CallGateCore
import CallGateProtocol
import Testing

/// What a session keeps for the call log.
@Suite struct SessionHistoryTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let t0 = Fixture.t0

    init() {
        a = f.connect("alice")
        b = f.connect("bob")
    }

    private func at(_ seconds: Int64, _ action: () -> Void) {
        f.advance(millis: Fixture.start + seconds * 1000 - f.nowMillis)
        action()
    }

    @Test func staysRecordingsMutesAndSwitchesAreKeptWithTheirTimes() throws {
        at(0) { _ = f.join("room:1", from: a, audioOnly: true) }
        at(10) { _ = f.join("room:1", from: b) }
        at(40) { _ = f.leave("room:1", from: b) }
        at(50) {
            let live = f.core.sessionHistory("room:1")
            #expect(live?.endedAt == nil)
            #expect(live?.participants == [
                ParticipantHistory(uid: "alice", name: "Alice", joinedAt: t0, totalSeconds: 50),
                ParticipantHistory(uid: "bob", name: "Bob", joinedAt: t0 + 10, leftAt: t0 + 40, totalSeconds: 30),
            ])
        }
        at(100) { _ = f.join("room:1", from: b) }
        at(110) { _ = f.record("room:1", true, from: a) }
        at(120) { _ = f.mute("room:1", audio: true, from: b) }
        at(150) { _ = f.record("room:1", false, from: b) }
        at(160) { _ = f.record("room:1", true, from: b) }
        at(170) { _ = f.video("room:1", from: b) }
        at(175) {
            #expect(f.core.sessionHistory("room:1")?.recordings.last
                == RecordingHistory(rid: "room:1-r2", startedAt: t0 + 160))
        }
        at(200) { _ = f.leave("room:1", from: a) }
        at(230) { _ = f.leave("room:1", from: b) }

        #expect(f.core.sessionHistory("room:1") == SessionHistory(
            sessionId: "room:1", callCategory: .meet, callType: .video, startedAt: t0, endedAt: t0 + 230,
            participants: [
                ParticipantHistory(uid: "alice", name: "Alice", joinedAt: t0, leftAt: t0 + 200, totalSeconds: 200),
                ParticipantHistory(uid: "bob", name: "Bob", joinedAt: t0 + 10, leftAt: t0 + 230, totalSeconds: 160),
            ],
            recordings: [
                RecordingHistory(rid: "room:1-r1", startedAt: t0 + 110, endedAt: t0 + 150, duration: 40),
                RecordingHistory(rid: "room:1-r2", startedAt: t0 + 160, endedAt: t0 + 230, duration: 70),
            ],
            muteChanges: [MuteChange(at: t0 + 120, uid: "bob", audioMuted: true, videoMuted: false)],
            videoSwitches: [VideoSwitch(at: t0 + 170, uid: "bob")]))
    }

    @Test func aCallSessionHistoryIsKeptAsLongAsTheFinishedCall() throws {
        let ringing = try #require(f.call("bob", from: a).call)
        at(4) { _ = f.accept(ringing.sessionId, from: b) }
        at(5) { _ = f.join(ringing.sessionId, from: b) }
        at(9) { _ = f.join(ringing.sessionId, from: a) }
        at(69) { _ = f.end(ringing.sessionId, from: a) }
        let history = try #require(f.core.sessionHistory(ringing.sessionId))
        #expect(history.callCategory == .call)
        #expect(history.startedAt == t0 + 5)
        #expect(history.endedAt == t0 + 69)
        #expect(history.participants.map(\.uid) == ["bob", "alice"])
        #expect(history.participants.map(\.totalSeconds) == [64, 60])
        #expect(history.participants.map(\.leftAt) == [t0 + 69, t0 + 69])
        at(368) { #expect(f.fireDueTimers().isEmpty) }
        #expect(f.core.sessionHistory(ringing.sessionId) != nil)
        at(369) { _ = f.fireDueTimers() }
        #expect(f.core.sessionHistory(ringing.sessionId) == nil)
        #expect(f.accept(ringing.sessionId, from: b).errorCode == .callNotFound)
        #expect(f.core.nextDeadline == nil)
    }

    @Test func aRecordingRunningAtTheEndStopsWithTheSession() throws {
        _ = f.join("room:2", from: a)
        _ = f.record("room:2", true, from: a)
        at(15) { _ = f.leave("room:2", from: a) }
        #expect(f.core.sessionHistory("room:2")?.recordings == [
            RecordingHistory(rid: "room:2-r1", startedAt: t0, endedAt: t0 + 15, duration: 15),
        ])
    }

    @Test func unknownSessionsHaveNoHistory() {
        #expect(f.core.sessionHistory("room:9") == nil)
        #expect(f.core.sessionHistory("bad id") == nil)
    }
}
