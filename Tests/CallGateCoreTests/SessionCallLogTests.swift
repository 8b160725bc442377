import CallGateCore
import CallGateProtocol
import Testing

/// What call sessions put in the call log: a ringing call's recordings and switch to video go
/// into the call's own row; a meeting (a session joined on a fresh id) is a `meet` row of its
/// own from first join to last leave, and a meeting id used again is a new row.
@Suite struct SessionCallLogTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = f.connect("alice")
        b = f.connect("bob")
        c = f.connect("carol")
    }

    @Test func recordingsOfACallsSessionAreInTheCallsRow() throws {
        _ = try #require(f.call("bob", from: a).call)
        var row = CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: alice, receiver: .user(bob), initiatedAt: t0, ringDeadline: Fixture.millis(45), ringExpiresAt: t0 + 45,
            participants: [Fixture.entry("alice", .joined), Fixture.entry("bob", .ringing)])
        #expect(f.changes() == [row])
        f.at(1)
        _ = try #require(f.join("s1", from: a).session)
        #expect(f.changes().allSatisfy { $0 == row })

        f.at(3)
        _ = try #require(f.record("s1", true, from: a).session)
        row.recordings = [CallLogRecording(rid: "s1-r1", startedAt: t0 + 3)]
        #expect(f.changes() == [row])

        f.at(10)
        _ = try #require(f.record("s1", false, from: a).session)
        row.recordings = [CallLogRecording(rid: "s1-r1", startedAt: t0 + 3, endedAt: t0 + 10, duration: 7)]
        #expect(f.changes() == [row])

        f.at(12)
        _ = try #require(f.accept("s1", from: b).call)
        _ = try #require(f.join("s1", from: b).session)
        f.at(13)
        _ = try #require(f.record("s1", true, from: b).session)
        f.at(20)
        _ = try #require(f.end("s1", from: a).call)
        row.callStatus = .ended
        row.startedAt = t0 + 12
        row.endedAt = t0 + 20
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 12, leftAt: t0 + 20, closed: 8),
            Fixture.entry("bob", .joined, joinedAt: t0 + 12, leftAt: t0 + 20, closed: 8),
        ]
        row.recordings.append(CallLogRecording(rid: "s1-r2", startedAt: t0 + 13, endedAt: t0 + 20, duration: 7))
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 20).hasRecording)
    }

    @Test func switchingToVideoChangesTheCallsRow() throws {
        _ = try #require(f.call("bob", from: a).call)
        f.at(2)
        _ = f.accept("s1", from: b)
        _ = f.join("s1", from: a)
        _ = f.join("s1", from: b)
        _ = f.changes()
        f.at(5)
        _ = try #require(f.video("s1", from: b).session)
        let row = CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .video, callStatus: .ongoing,
            initiator: alice, receiver: .user(bob), initiatedAt: t0, startedAt: t0 + 2, ringExpiresAt: t0 + 45,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: t0 + 2, stay: t0 + 2),
                Fixture.entry("bob", .joined, joinedAt: t0 + 2, stay: t0 + 2),
            ])
        #expect(f.changes() == [row])
        f.at(9)
        _ = f.end("s1", from: b)
        #expect(f.changes().map(\.callType) == [.video])
    }

    @Test func mutingChangesNoRow() throws {
        _ = f.join("room:1", from: a)
        _ = f.changes()
        _ = try #require(f.mute("room:1", audio: true, from: a).session)
        #expect(f.changes() == [])
    }

    @Test func aMeetingIsOneRowFromFirstJoinToLastLeave() throws {
        _ = try #require(f.join("room:1", from: a, audioOnly: true).session)
        var row = CallLogRecord(
            id: 1, sessionId: "room:1", callCategory: .meet, callType: .audio, callStatus: .ongoing,
            initiator: alice, receiver: nil, initiatedAt: t0, startedAt: t0,
            participants: [Fixture.entry("alice", .joined, joinedAt: t0, stay: t0)])
        #expect(f.changes() == [row])

        f.at(10)
        _ = try #require(f.join("room:1", from: b).session)
        row.participants.append(Fixture.entry("bob", .joined, joinedAt: t0 + 10, stay: t0 + 10))
        #expect(f.changes() == [row])

        f.at(20)
        _ = try #require(f.record("room:1", true, from: b).session)
        row.recordings = [CallLogRecording(rid: "room:1-r1", startedAt: t0 + 20)]
        #expect(f.changes() == [row])

        f.at(40)
        _ = try #require(f.leave("room:1", from: b).session)
        row.participants[1] = Fixture.entry("bob", .joined, joinedAt: t0 + 10, leftAt: t0 + 40, closed: 30)
        #expect(f.changes() == [row])

        f.at(50)
        _ = try #require(f.leave("room:1", from: a).session)
        row.callStatus = .ended
        row.endedAt = t0 + 50
        row.participants[0] = Fixture.entry("alice", .joined, joinedAt: t0, leftAt: t0 + 50, closed: 50)
        row.recordings = [CallLogRecording(rid: "room:1-r1", startedAt: t0 + 20, endedAt: t0 + 50, duration: 30)]
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 50).duration == 50)
        #expect(row.log(for: "alice", at: t0 + 50).callDirection == .outgoing)
        #expect(row.log(for: "bob", at: t0 + 50).callDirection == .incoming)
    }

    @Test func aMeetingIdUsedAgainIsANewRowUnderTheSameSessionId() throws {
        _ = f.join("room:1", from: a)
        f.at(5)
        _ = f.leave("room:1", from: a)
        #expect(f.changes().map(\.id) == [1])
        _ = try #require(f.call("bob", from: a).call)
        #expect(f.changes().map(\.id) == [2])

        f.at(30)
        _ = try #require(f.join("room:1", from: c).session)
        #expect(f.changes() == [CallLogRecord(
            id: 3, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: Fixture.user("carol"), receiver: nil, initiatedAt: t0 + 30, startedAt: t0 + 30,
            participants: [Fixture.entry("carol", .joined, joinedAt: t0 + 30, stay: t0 + 30)])])
    }

    @Test func aMeetingWhoseLastParticipantVanishesEndsAfterTheirGrace() throws {
        _ = f.join("room:1", from: a)
        _ = f.changes()
        f.at(10)
        _ = f.disconnect(a)
        #expect(f.changes() == [])
        f.at(40)
        #expect(f.changes() == [CallLogRecord(
            id: 1, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ended,
            initiator: alice, receiver: nil, initiatedAt: t0, startedAt: t0, endedAt: t0 + 40,
            participants: [Fixture.entry("alice", .joined, joinedAt: t0, leftAt: t0 + 40, closed: 40)])])
    }
}
