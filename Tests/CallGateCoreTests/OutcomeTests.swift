import CallGateCore
import CallGateProtocol
import Testing

/// What an outcome carries besides the reply, read straight from the Core: deliveries address
/// users and leave out the asking device, each finished call is reported once by the op or
/// timer that finished it, a refused op has no effects, and the next deadline follows the timers.
@Suite struct OutcomeTests {
    @Test func deliveriesNameUsersAndLeaveOutTheAskingDevice() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.devices("bob", 2)
        let call = try #require(f.call("bob", from: a).call)
        let outcome = f.core.acceptCall(sessionId: call.sessionId, from: b[0])
        let answered = try outcome.reply.get()
        #expect(outcome.deliveries == [
            Delivery(push: .outgoingCallAccepted(call: answered, by: Fixture.user("bob")), users: ["alice"]),
            Delivery(push: .incomingCallCanceled(call: answered, reason: .answeredElsewhere), users: ["bob"], excluding: b[0]),
        ])
        #expect(f.core.connections(receiving: outcome.deliveries[1]) == [b[1]])
    }

    @Test func aUserWithNoDeviceIsStillAddressedAndReachesNoConnection() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let outcome = f.core.initiateCall(
            InitiateCallParams(receiverId: "bob", receiverType: .user, callType: .audio), from: a)
        let call = try outcome.reply.get()
        #expect(outcome.deliveries == [Delivery(push: .incomingCallReceived(call: call), users: ["bob"])])
        #expect(f.core.connections(receiving: outcome.deliveries[0]).isEmpty)
    }

    @Test func eachFinishedCallIsReportedOnceByWhatFinishedIt() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let ringing = try #require(f.call("bob", from: a).call)
        let accepted = f.core.acceptCall(sessionId: ringing.sessionId, from: b)
        #expect(accepted.finishedCalls.isEmpty)
        let busy = f.core.initiateCall(InitiateCallParams(receiverId: "bob", receiverType: .user, callType: .audio), from: c)
        #expect(busy.finishedCalls.map(\.callStatus) == [.busy])
        let ended = f.core.endCall(sessionId: ringing.sessionId, from: a)
        #expect(ended.finishedCalls == [try ended.reply.get()])
        let late = f.core.endCall(sessionId: ringing.sessionId, from: b)
        #expect(late.errorCodeOfReply == .callEnded)
        #expect(late.finishedCalls.isEmpty)

        _ = try #require(f.call("carol", from: a).call)
        f.advance(seconds: 46)
        let timedOut = f.core.fireDueTimers()
        #expect(timedOut.finishedCalls.map(\.callStatus) == [.unanswered])
        #expect(f.core.fireDueTimers().finishedCalls.isEmpty)
    }

    @Test func aRefusedOpHasNoEffects() {
        let f = Fixture()
        let a = f.connect("alice")
        let refused = f.core.initiateCall(InitiateCallParams(receiverId: "alice", receiverType: .user, callType: .audio), from: a)
        #expect(refused.errorCodeOfReply == .callingSelf)
        #expect(refused.deliveries.isEmpty)
        #expect(refused.logChanges.isEmpty)
        #expect(refused.finishedCalls.isEmpty)
        #expect(refused.nextDeadline == nil)
    }

    @Test func theNextDeadlineFollowsTheTimers() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let rung = f.core.initiateCall(
            InitiateCallParams(receiverId: "bob", receiverType: .user, callType: .audio, timeout: 30), from: a)
        #expect(rung.nextDeadline == Fixture.start + 30_000)
        let declined = f.core.rejectCall(RejectCallParams(sessionId: try rung.reply.get().sessionId, status: .rejected), from: b)
        // Only the retention of the finished call and its history remain.
        #expect(declined.nextDeadline == f.core.nextDeadline)
        #expect(declined.nextDeadline.map { $0 > Fixture.start + 30_000 } == true)
    }
}

extension Outcome {
    /// The error code of a refused op.
    var errorCodeOfReply: ErrorCode? {
        guard case .failure(let error) = reply else { return nil }
        return error.code
    }
}
