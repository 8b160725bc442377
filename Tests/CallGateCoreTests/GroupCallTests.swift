import CallGateCore
import CallGateProtocol
import Testing

/// Group "team" = alice (caller, 2 devices), bob (2), carol (2), dave (1).
@Suite struct GroupCallTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: [ConnectionID]
    let d: ConnectionID
    let bob = Fixture.user("bob")
    let carol = Fixture.user("carol")
    let dave = Fixture.user("dave")

    init() {
        f.group("team", ["alice", "bob", "carol", "dave"])
        a = f.devices("alice", 2)
        b = f.devices("bob", 2)
        c = f.devices("carol", 2)
        d = f.connect("dave")
    }

    private func ring(timeout: Int? = nil) throws -> Call {
        try #require(f.call("team", from: a[0], type: .group, timeout: timeout).call)
    }

    @Test func ringsEveryMemberButTheCaller() throws {
        let outcome = f.call("team", from: a[0], type: .group)
        let call = try #require(outcome.call)
        #expect(call == Call(
            sessionId: "s1", callType: .audio, receiverType: .group, callStatus: .initiated,
            initiator: Fixture.user("alice"),
            receiver: .group(Group(guid: "team", name: "Group team", membersCount: 4)),
            initiatedAt: f.nowSeconds, callUUID: CallUUID.of(sessionId: "s1"), ringExpiresAt: f.nowSeconds + 45))
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), b + c + [d])])
    }

    @Test func unknownGroupOrNotAMemberIsGroupNotFound() {
        let e = f.connect("erin")
        #expect(f.call("nope", from: a[0], type: .group).reply == .failure(CoreError(
            code: .groupNotFound, message: "no such group, or you are not a member of it")))
        #expect(f.call("team", from: e, type: .group).errorCode == .groupNotFound)
    }

    @Test func aGroupWithNobodyElseIsABadRequest() {
        f.group("solo", ["alice"])
        #expect(f.call("solo", from: a[0], type: .group).reply == .failure(CoreError(
            code: .badRequest, message: "data.receiverId: the group has no other member to ring")))
    }

    @Test func membersInAnAnsweredCallAreSkipped() throws {
        let e = f.connect("erin")
        let other = try #require(f.call("dave", from: e).call)
        _ = f.accept(other.sessionId, from: d)
        let outcome = f.call("team", from: a[0], type: .group)
        let call = try #require(outcome.call)
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), b + c)])
        #expect(f.accept(call.sessionId, from: d).errorCode == .notParticipant)
    }

    @Test func whenEveryoneIsBusyTheCallEndsBusy() throws {
        f.group("pair", ["alice", "dave", "bob"])
        let e = f.connect("erin")
        let first = try #require(f.call("dave", from: e).call)
        _ = f.accept(first.sessionId, from: d)
        let second = try #require(f.call("bob", from: c[0]).call)
        _ = f.accept(second.sessionId, from: b[0])
        let outcome = f.call("pair", from: a[0], type: .group)
        let call = try #require(outcome.call)
        #expect(call.callStatus == .busy)
        #expect(call.endedAt == call.initiatedAt)
        #expect(outcome.deliveries == [delivery(.outgoingCallRejected(call: call, by: dave), a)])
    }

    @Test func firstAcceptMakesItOngoingAndLaterAcceptsJoin() throws {
        let ringing = try ring()
        f.advance(seconds: 4)
        let first = f.accept(ringing.sessionId, from: b[0])
        let afterBob = try #require(first.call)
        #expect(afterBob.callStatus == .ongoing)
        #expect(afterBob.joinedAt == f.nowSeconds)
        #expect(afterBob.receiver == ringing.receiver)
        #expect(first.deliveries == [
            delivery(.outgoingCallAccepted(call: afterBob, by: bob), a),
            delivery(.incomingCallCanceled(call: afterBob, reason: .answeredElsewhere), [b[1]]),
        ])

        f.advance(seconds: 4)
        let second = f.accept(ringing.sessionId, from: c[1])
        let afterCarol = try #require(second.call)
        #expect(afterCarol == afterBob)
        #expect(second.deliveries == [
            delivery(.outgoingCallAccepted(call: afterCarol, by: carol), a + b),
            delivery(.incomingCallCanceled(call: afterCarol, reason: .answeredElsewhere), [c[0]]),
        ])
        #expect(f.accept(ringing.sessionId, from: c[0]).errorCode == .callAlreadyJoined)
        #expect(f.accept(ringing.sessionId, from: a[1]).errorCode == .notParticipant)
    }

    @Test func oneDeclineStopsOnlyThatMember() throws {
        let ringing = try ring()
        let outcome = f.reject(ringing.sessionId, .rejected, from: c[0])
        #expect(outcome.call == ringing)
        #expect(outcome.deliveries == [
            delivery(.incomingCallCanceled(call: ringing, reason: .rejectedElsewhere), [c[1]]),
        ])
        #expect(f.accept(ringing.sessionId, from: c[1]).reply == .failure(CoreError(
            code: .callRejected, message: "you declined this call")))
        #expect(f.accept(ringing.sessionId, from: b[0]).call?.callStatus == .ongoing)
    }

    @Test func whenEveryMemberDeclinesTheCallIsRejected() throws {
        let ringing = try ring()
        _ = f.reject(ringing.sessionId, .rejected, from: b[0])
        _ = f.reject(ringing.sessionId, .busy, from: d)
        f.advance(seconds: 1)
        let last = f.reject(ringing.sessionId, .rejected, from: c[1])
        let call = try #require(last.call)
        #expect(call.callStatus == .rejected)
        #expect(call.endedAt == f.nowSeconds)
        #expect(last.deliveries == [
            delivery(.outgoingCallRejected(call: call, by: carol), a),
            delivery(.incomingCallCanceled(call: call, reason: .rejectedElsewhere), [c[0]]),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.nextDeadline == Fixture.start + 1000 + 300_000)
    }

    @Test func declinesAfterAnAcceptDoNotEndTheCall() throws {
        let ringing = try ring()
        let ongoing = try #require(f.accept(ringing.sessionId, from: b[0]).call)
        _ = f.reject(ringing.sessionId, .busy, from: d)
        let last = f.reject(ringing.sessionId, .rejected, from: c[0])
        #expect(last.call == ongoing)
        #expect(last.deliveries == [
            delivery(.incomingCallCanceled(call: ongoing, reason: .rejectedElsewhere), [c[1]]),
        ])
        #expect(f.core.activeCallCount == 1)
        #expect(f.core.nextDeadline == nil)
    }

    @Test func timeoutWithoutAcceptIsUnanswered() throws {
        let ringing = try ring(timeout: 30)
        _ = f.reject(ringing.sessionId, .rejected, from: b[0])
        f.advance(seconds: 30)
        let deliveries = f.fireDueTimers()
        var call = ringing
        call.callStatus = .unanswered
        call.endedAt = f.nowSeconds
        #expect(deliveries == [
            delivery(.outgoingCallRejected(call: call, by: nil), a),
            delivery(.incomingCallCanceled(call: call, reason: .unanswered), c + [d]),
        ])
    }

    @Test func timeoutAfterAnAcceptStopsTheRestAndTheCallGoesOn() throws {
        let ringing = try ring()
        let call = try #require(f.accept(ringing.sessionId, from: b[0]).call)
        f.advance(seconds: 45)
        #expect(f.fireDueTimers() == [
            delivery(.incomingCallCanceled(call: call, reason: .unanswered), c + [d]),
        ])
        #expect(f.core.activeCallCount == 1)
        #expect(f.core.nextDeadline == nil)
        #expect(f.accept(ringing.sessionId, from: c[0]).reply == .failure(CoreError(
            code: .callEnded, message: "this call is over for you")))
        #expect(f.end(ringing.sessionId, from: b[1]).call?.callStatus == .ended)
    }

    @Test func whenNobodyRingsAnyMoreTheRingTimerStops() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        _ = f.reject(ringing.sessionId, .rejected, from: c[0])
        #expect(f.core.nextDeadline != nil)
        _ = f.accept(ringing.sessionId, from: d)
        #expect(f.core.nextDeadline == nil)
    }

    @Test func participantsLeaveUntilFewerThanTwoRemain() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        let ongoing = try #require(f.accept(ringing.sessionId, from: c[0]).call)

        let bobLeaves = f.end(ringing.sessionId, from: b[0])
        #expect(bobLeaves.call == ongoing)
        #expect(bobLeaves.deliveries == [
            delivery(.callEndedMessageReceived(call: ongoing, by: bob, reason: .hungUp), [b[1]]),
        ])
        #expect(f.end(ringing.sessionId, from: b[1]).errorCode == .callEnded)
        #expect(f.accept(ringing.sessionId, from: b[1]).errorCode == .callEnded)

        f.advance(seconds: 9)
        let carolLeaves = f.end(ringing.sessionId, from: c[1])
        let ended = try #require(carolLeaves.call)
        #expect(ended.callStatus == .ended)
        #expect(ended.endedAt == f.nowSeconds)
        #expect(carolLeaves.deliveries == [
            delivery(.callEndedMessageReceived(call: ended, by: carol, reason: .hungUp), [c[0]] + a),
            delivery(.incomingCallCanceled(call: ended, reason: .ended), [d]),
        ])
        #expect(f.core.activeCallCount == 0)
    }

    @Test func theCallerMayLeaveAndTheOthersGoOn() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        let ongoing = try #require(f.accept(ringing.sessionId, from: c[0]).call)
        let leaves = f.end(ringing.sessionId, from: a[1])
        #expect(leaves.call == ongoing)
        #expect(leaves.deliveries == [
            delivery(.callEndedMessageReceived(call: ongoing, by: Fixture.user("alice"), reason: .hungUp), [a[0]]),
        ])
        #expect(f.reject(ringing.sessionId, .cancelled, from: a[0]).errorCode == .callAlreadyJoined)
        #expect(f.call("bob", from: a[0]).errorCode == nil)
        let joins = f.accept(ringing.sessionId, from: d)
        #expect(joins.deliveries.map(\.connections) == [b + c])
    }

    @Test func theCallerCancelsAGroupCall() throws {
        let ringing = try ring()
        _ = f.reject(ringing.sessionId, .rejected, from: b[0])
        let outcome = f.reject(ringing.sessionId, .cancelled, from: a[0])
        let call = try #require(outcome.call)
        #expect(call.callStatus == .cancelled)
        #expect(outcome.deliveries == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), c + [d])])
    }

    @Test func membersAreSnapshotAtInitiate() throws {
        let ringing = try ring()
        f.group("team", ["alice", "bob", "carol", "dave", "erin"])
        let e = f.connect("erin")
        #expect(f.connect(e, user: Fixture.user("erin")).isEmpty)
        #expect(f.accept(ringing.sessionId, from: e).errorCode == .notParticipant)
        f.groups.delete("team")
        #expect(f.accept(ringing.sessionId, from: b[0]).call?.receiver
            == .group(Group(guid: "team", name: "Group team", membersCount: 4)))
    }
}
