@testable import CallGateCore
import CallGateProtocol
import Testing

/// inviteToCall. alice called bob, who answered; carol and dave are connected, erin is in another
/// answered call with frank.
@Suite struct InviteTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let c: ConnectionID
    let d: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let sessionId: String

    init() throws {
        a = f.connect("alice")
        b = f.connect("bob")
        c = f.connect("carol")
        d = f.connect("dave")
        let e = f.connect("erin")
        let g = f.connect("frank")
        let call = try #require(f.call("bob", from: a).call)
        sessionId = call.sessionId
        _ = f.accept(sessionId, from: b)
        let other = try #require(f.call("frank", from: e).call)
        _ = f.accept(other.sessionId, from: g)
        _ = f.changes()
    }

    @Test func anInviteeIsRungWithWhoInvitedThemAndJoinsOnAccepting() throws {
        let invited = f.invite(sessionId, ["carol", "erin", "carol"], from: b)
        let result = try invited.reply.get()
        #expect(result.rung == ["carol"] && result.busy == ["erin"])
        #expect(invited.deliveries == [delivery(.incomingCallReceived(call: result.call, invitedBy: bob), [c])])
        #expect(result.call.ringExpiresAt == Fixture.t0 + 45)
        #expect(f.webhookEvents.suffix(2).map(\.type) == [.callInvited, .callRinging])
        #expect(f.webhookEvents.suffix(2).first?.data.by == bob)

        let accepted = f.accept(sessionId, from: c)
        #expect(accepted.call?.callStatus == .ongoing)
        #expect(accepted.call?.receiver == .user(bob))
        #expect(accepted.deliveries.first?.push == .outgoingCallAccepted(call: try #require(accepted.call), by: Fixture.user("carol")))
        #expect(Set(accepted.deliveries.first?.connections ?? []) == [a, b])
        let logged = try #require(f.changes().last)
        #expect(logged.participants.map(\.uid) == ["alice", "bob", "carol", "erin"])
        #expect(logged.participants.map(\.state) == [.joined, .joined, .joined, .missed])
    }

    @Test func aGrownOneToOneCallGoesOnWhenOneLeaves() throws {
        _ = f.invite(sessionId, ["carol"], from: a)
        _ = f.accept(sessionId, from: c)
        let left = f.end(sessionId, from: b)
        #expect(left.call?.callStatus == .ongoing)
        let ended = f.end(sessionId, from: c)
        #expect(ended.call?.callStatus == .ended)
    }

    @Test func anInviteeWhoDoesNotAnswerMissesItAndTheCallGoesOn() throws {
        _ = f.invite(sessionId, ["dave"], from: a)
        f.advance(seconds: 45)
        let sent = f.fireDueTimers()
        #expect(sent.contains { $0.push.event == .onIncomingCallCanceled && $0.connections == [d] })
        let logged = try #require(f.changes().last)
        #expect(logged.callStatus == .ongoing)
        #expect(logged.participants.last?.uid == "dave" && logged.participants.last?.state == .missed)
        #expect(logged.missedUIDs == ["dave"])
        let declined = f.invite(sessionId, ["dave"], from: a)
        #expect(declined.reply.map(\.rung) == .success(["dave"]))
        #expect(f.reject(sessionId, .rejected, from: d).call?.callStatus == .ongoing)
    }

    @Test func invitesAreBoundedAndOnlyForParticipantsOfAnAnsweredCall() throws {
        #expect(f.invite(sessionId, [], from: a).errorCode == .badRequest)
        #expect(f.invite(sessionId, (0..<11).map { "u\($0)" }, from: a).errorCode == .badRequest)
        #expect(f.invite(sessionId, ["ok", "bad uid"], from: a).reply
            == .failure(.badRequest("data.receiverIds[1]: \(FieldRules.idRuleDescription)")))
        #expect(f.invite(sessionId, ["bob"], from: a).reply == .failure(.badRequest("data.receiverIds[0]: bob is in this call already")))
        #expect(f.invite(sessionId, ["alice"], from: a).reply == .failure(.badRequest("data.receiverIds[0]: that is you")))
        #expect(f.invite(sessionId, ["dave"], from: c).reply == .failure(.notParticipant("you are not in this call")))
        #expect(f.invite("v1.none", ["dave"], from: a).errorCode == .callNotFound)
        let ringing = try #require(f.call("dave", from: c).call)
        #expect(f.invite(ringing.sessionId, ["alice"], from: c).reply
            == .failure(.badRequest("the call still rings: invite once it is answered")))
        _ = f.join("room:1", from: d)
        #expect(f.invite("room:1", ["alice"], from: d).reply
            == .failure(.badRequest("a meeting is joined with its id: share it instead of inviting")))
        #expect(f.invite(sessionId, ["dave"], from: a).errorCode == nil)
    }

    @Test func theCallerIsNotInvitedIntoTheirOwnCallAndInvitesAreCallStarts() throws {
        _ = f.join(sessionId, from: a)
        _ = f.join(sessionId, from: b)
        _ = f.invite(sessionId, ["carol"], from: a)
        _ = f.accept(sessionId, from: c)
        _ = f.join(sessionId, from: c)
        _ = f.end(sessionId, from: a)
        #expect(f.invite(sessionId, ["alice"], from: b).reply == .failure(.badRequest(
            "data.receiverIds[0]: alice started this call and cannot be rung into it")))
        let small = Fixture(CoreConfiguration(maxCallsPerMinute: 3))
        let x = small.connect("x")
        let y = small.connect("y")
        let call = try #require(small.call("y", from: x).call)
        _ = small.accept(call.sessionId, from: y)
        #expect(small.invite(call.sessionId, ["z1"], from: x).errorCode == nil)
        #expect(small.invite(call.sessionId, ["z2"], from: x).errorCode == nil)
        #expect(small.invite(call.sessionId, ["z3"], from: x).reply == .failure(.callRateLimited(3)))
        #expect(small.invite(call.sessionId, ["z3"], from: y).errorCode == nil)
    }

    @Test func aUserTheHostRemovedIsNotInvitedBack() throws {
        _ = f.join(sessionId, from: a)
        _ = f.join(sessionId, from: b)
        _ = f.invite(sessionId, ["carol"], from: a)
        _ = f.accept(sessionId, from: c)
        _ = f.join(sessionId, from: c)
        _ = f.removeParticipant(sessionId, "carol", from: a)
        #expect(f.invite(sessionId, ["carol"], from: b).reply == .failure(.badRequest(
            "data.receiverIds[0]: the host removed carol from this call")))
    }

    @Test func someoneWhoTookPartStaysJoinedInTheLogWhenAReInviteGoesUnanswered() throws {
        _ = f.invite(sessionId, ["carol"], from: a)
        _ = f.accept(sessionId, from: c)
        _ = f.end(sessionId, from: c)
        _ = f.invite(sessionId, ["carol"], from: a)
        f.advance(seconds: 45)
        _ = f.fireDueTimers()
        let logged = try #require(f.changes().last)
        #expect(logged.participants.first { $0.uid == "carol" }?.state == .joined)
        #expect(!logged.missedUIDs.contains("carol"))
    }

    @Test func aCallGrowsToMaxCallMembersAtMost() throws {
        let small = Fixture(CoreConfiguration(maxCallMembers: 3))
        let x = small.connect("x")
        let y = small.connect("y")
        let call = try #require(small.call("y", from: x).call)
        _ = small.accept(call.sessionId, from: y)
        #expect(small.invite(call.sessionId, ["z1", "z2"], from: x).reply == .failure(.tooManyParticipants(3)))
        #expect(small.invite(call.sessionId, ["z1"], from: x).errorCode == nil)
        #expect(small.invite(call.sessionId, ["z2"], from: y).reply == .failure(.tooManyParticipants(3)))
    }

    @Test func anInviteeBusyOnAnotherNodeIsNotRung() throws {
        let elsewhere = CalleesElsewhere(answered: ["zed"], profiles: [:], onlineDevices: [:])
        let result = try f.invite(sessionId, ["zed", "dave"], from: a, elsewhere: elsewhere).reply.get()
        #expect(result.busy == ["zed"] && result.rung == ["dave"])
    }
}
