import CallGateCore
import CallGateProtocol
import Testing

/// The call log row of group calls: every member rung is in it with their part (accepted,
/// declined, timed out, left, or skipped as busy), and the whole row after each transition.
/// Group "team" = alice (caller), bob, carol, dave, erin.
@Suite struct GroupCallLogTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let c: ConnectionID
    let d: ConnectionID
    let e: ConnectionID
    let t0 = Fixture.t0
    let team = CallReceiver.group(Group(guid: "team", name: "Group team", membersCount: 5))

    init() {
        f.group("team", ["alice", "bob", "carol", "dave", "erin"])
        a = f.connect("alice")
        b = f.connect("bob")
        c = f.connect("carol")
        d = f.connect("dave")
        e = f.connect("erin")
    }

    /// The row of a call to "team" rung at t0 with the default timeout.
    private func ringingRow(id: Int64 = 1, sessionId: String = "s1", rung: [String]) -> CallLogRecord {
        CallLogRecord(
            id: id, sessionId: sessionId, callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: Fixture.user("alice"), receiver: team, initiatedAt: t0, ringDeadline: Fixture.millis(45), ringExpiresAt: t0 + 45,
            participants: [Fixture.entry("alice", .joined)] + rung.map { Fixture.entry($0, .ringing) })
    }

    @Test func acceptsDeclinesTimeoutsAndLeavesEachShowInTheRow() throws {
        _ = try #require(f.call("team", from: a, type: .group).call)
        var row = ringingRow(rung: ["bob", "carol", "dave", "erin"])
        #expect(f.changes() == [row])

        f.at(5)
        _ = try #require(f.accept("s1", from: b).call)
        row.callStatus = .ongoing
        row.startedAt = t0 + 5
        row.participants[0] = Fixture.entry("alice", .joined, joinedAt: t0 + 5, stay: t0 + 5)
        row.participants[1] = Fixture.entry("bob", .joined, joinedAt: t0 + 5, stay: t0 + 5)
        #expect(f.changes() == [row])

        f.at(8)
        _ = try #require(f.accept("s1", from: c).call)
        row.participants[2] = Fixture.entry("carol", .joined, joinedAt: t0 + 8, stay: t0 + 8)
        #expect(f.changes() == [row])

        f.at(10)
        _ = try #require(f.reject("s1", .rejected, from: d).call)
        row.participants[3] = Fixture.entry("dave", .declined)
        #expect(f.changes() == [row])

        f.at(45)
        row.participants[4] = Fixture.entry("erin", .missed)
        row.ringDeadline = nil
        #expect(f.changes() == [row])

        f.at(60)
        #expect(f.end("s1", from: b).call?.callStatus == .ongoing)
        row.participants[1] = Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 60, closed: 55)
        #expect(f.changes() == [row])

        f.at(90)
        #expect(f.end("s1", from: c).call?.callStatus == .ended)
        row.callStatus = .ended
        row.endedAt = t0 + 90
        row.participants[0] = Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 90, closed: 85)
        row.participants[2] = Fixture.entry("carol", .joined, joinedAt: t0 + 8, leftAt: t0 + 90, closed: 82)
        #expect(f.changes() == [row])

        #expect(row.log(for: "erin", at: t0 + 90).missed == true)
        #expect(row.log(for: "dave", at: t0 + 90).missed == nil)
        #expect(row.log(for: "bob", at: t0 + 90).missed == nil)
        #expect(row.log(for: "alice", at: t0 + 90).duration == 85)
    }

    @Test func membersStillRingingWhenTheCallEndsMissedIt() throws {
        _ = try #require(f.call("team", from: a, type: .group).call)
        f.at(5)
        _ = f.accept("s1", from: b)
        f.at(20)
        #expect(f.end("s1", from: b).call?.callStatus == .ended)
        var row = ringingRow(rung: [])
        row.callStatus = .ended
        row.startedAt = t0 + 5
        row.endedAt = t0 + 20
        row.ringDeadline = nil
        row.participants = [
            Fixture.entry("alice", .joined, joinedAt: t0 + 5, leftAt: t0 + 20, closed: 15),
            Fixture.entry("bob", .joined, joinedAt: t0 + 5, leftAt: t0 + 20, closed: 15),
            Fixture.entry("carol", .missed), Fixture.entry("dave", .missed), Fixture.entry("erin", .missed),
        ]
        #expect(f.changes() == [row])
    }

    @Test func whenEveryMemberDeclinesTheRowIsRejectedAndNobodyMissedIt() throws {
        _ = try #require(f.call("team", from: a, type: .group).call)
        f.at(2)
        for connection in [b, c, d, e] {
            _ = f.reject("s1", .rejected, from: connection)
        }
        var row = ringingRow(rung: [])
        row.callStatus = .rejected
        row.endedAt = t0 + 2
        row.ringDeadline = nil
        row.participants += ["bob", "carol", "dave", "erin"].map { Fixture.entry($0, .declined) }
        #expect(f.changes() == [row])
        for uid in ["bob", "carol", "dave", "erin"] {
            #expect(row.log(for: uid, at: t0 + 2).missed == nil)
        }
    }

    @Test func busyMembersAreLoggedMissedWhileTheOthersRing() throws {
        let g = f.connect("gus")
        _ = try #require(f.call("dave", from: g).call)
        _ = f.accept("s1", from: d)
        _ = f.changes()

        let outcome = f.call("team", from: a, type: .group)
        let call = try #require(outcome.call)
        #expect(call.callStatus == .initiated)
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), [b, c, e])])
        var row = ringingRow(id: 2, sessionId: "s2", rung: ["bob", "carol", "erin"])
        row.participants.append(Fixture.entry("dave", .missed))
        #expect(f.changes() == [row])
        #expect(row.log(for: "dave", at: t0).missed == true)

        f.at(4)
        _ = try #require(f.accept("s2", from: b).call)
        let answered = try #require(f.changes().first)
        #expect(answered.callStatus == .ongoing)
        #expect(answered.participants.map(\.state) == [.joined, .joined, .ringing, .ringing, .missed])
    }

    @Test func whenEveryMemberIsBusyTheCallIsOneBusyRow() throws {
        f.group("pair", ["alice", "bob", "carol"])
        _ = try #require(f.call("bob", from: d).call)
        _ = f.accept("s1", from: b)
        _ = try #require(f.call("carol", from: e).call)
        _ = f.accept("s2", from: c)
        _ = f.changes()

        f.at(3)
        let call = try #require(f.call("pair", from: a, type: .group).call)
        #expect(call.callStatus == .busy)
        let row = CallLogRecord(
            id: 3, sessionId: "s3", callCategory: .call, callType: .audio, callStatus: .busy,
            initiator: Fixture.user("alice"), receiver: .group(Group(guid: "pair", name: "Group pair", membersCount: 3)),
            initiatedAt: t0 + 3, endedAt: t0 + 3, ringExpiresAt: t0 + 3 + 45,
            participants: [Fixture.entry("alice", .joined), Fixture.entry("bob", .missed), Fixture.entry("carol", .missed)])
        #expect(f.changes() == [row])
        #expect(row.log(for: "bob", at: t0 + 3).missed == true)
        #expect(row.log(for: "bob", at: t0 + 3).receiverType == .group)
    }

    @Test func aDeclinersNameSurvivesTheirDisconnect() throws {
        _ = try #require(f.call("team", from: a, type: .group).call)
        _ = f.reject("s1", .rejected, from: d)
        _ = f.disconnect(d)
        _ = f.changes()
        f.at(45)
        let row = try #require(f.changes().first)
        #expect(row.participants.map(\.name) == ["Alice", "Bob", "Carol", "Dave", "Erin"])
        #expect(row.participants.map(\.state) == [.joined, .missed, .missed, .declined, .missed])
    }
}
