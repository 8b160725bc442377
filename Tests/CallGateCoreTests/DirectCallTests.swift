@testable import CallGateCore
import CallGateProtocol
import Testing

/// 1:1 calls: alice (2 devices) rings bob (3 devices); carol is a bystander.
@Suite struct DirectCallTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")

    init() {
        a = f.devices("alice", 2)
        b = f.devices("bob", 3)
        c = f.connect("carol")
    }

    private func ring() throws -> Call {
        try #require(f.call("bob", from: a[0]).call)
    }

    @Test func acceptMakesTheCallOngoingAndStopsTheOtherDevices() throws {
        let ringing = try ring()
        f.advance(seconds: 7)
        let outcome = f.accept(ringing.sessionId, from: b[1])
        let call = try #require(outcome.call)
        var expected = ringing
        expected.callStatus = .ongoing
        expected.joinedAt = Fixture.start / 1000 + 7
        #expect(call == expected)
        #expect(outcome.deliveries == [
            delivery(.outgoingCallAccepted(call: call, by: bob), a),
            delivery(.incomingCallCanceled(call: call, reason: .answeredElsewhere), [b[0], b[2]]),
        ])
        #expect(f.core.nextDeadline == nil)
    }

    @Test func aSecondAcceptIsAlreadyJoined() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        let second = f.accept(ringing.sessionId, from: b[1])
        #expect(second.errorCode == .callAlreadyJoined)
        #expect(second.deliveries.isEmpty)
    }

    @Test(arguments: [RejectStatus.rejected, .busy])
    func declineEndsTheCallWithTheStatusAsked(status: RejectStatus) throws {
        let ringing = try ring()
        f.advance(seconds: 3)
        let outcome = f.reject(ringing.sessionId, status, from: b[2])
        let call = try #require(outcome.call)
        #expect(call.callStatus == (status == .busy ? .busy : .rejected))
        #expect(call.endedAt == f.nowSeconds)
        #expect(call.joinedAt == nil)
        #expect(outcome.deliveries == [
            delivery(.outgoingCallRejected(call: call, by: bob), a),
            delivery(.incomingCallCanceled(call: call, reason: .rejectedElsewhere), [b[0], b[1]]),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.call("carol", from: a[1]).call?.callStatus == .initiated)
    }

    @Test func theCallerCancelsWithRejectCall() throws {
        let ringing = try ring()
        let outcome = f.reject(ringing.sessionId, .cancelled, from: a[0])
        let call = try #require(outcome.call)
        #expect(call.callStatus == .cancelled)
        #expect(call.endedAt == f.nowSeconds)
        #expect(outcome.deliveries == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), b)])
    }

    @Test func theCallerCancelsFromAnotherDevice() throws {
        let ringing = try ring()
        let outcome = f.reject(ringing.sessionId, .cancelled, from: a[1])
        let call = try #require(outcome.call)
        #expect(outcome.deliveries == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), b)])
    }

    @Test func endCallWhileRingingIsACancel() throws {
        let ringing = try ring()
        let outcome = f.end(ringing.sessionId, from: a[0])
        let call = try #require(outcome.call)
        #expect(call.callStatus == .cancelled)
        #expect(outcome.deliveries == [delivery(.incomingCallCanceled(call: call, reason: .cancelled), b)])
    }

    @Test func cancellingAnAnsweredCallIsAlreadyJoined() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        let outcome = f.reject(ringing.sessionId, .cancelled, from: a[0])
        #expect(outcome.reply == .failure(CoreError(
            code: .callAlreadyJoined, message: "the call was answered: end it with endCall")))
        #expect(f.core.activeCallCount == 1)
    }

    @Test func decliningAnAnsweredCallIsAlreadyJoined() throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        #expect(f.reject(ringing.sessionId, .rejected, from: b[1]).errorCode == .callAlreadyJoined)
    }

    @Test func ringTimeoutLeavesTheCallUnanswered() throws {
        let ringing = try ring()
        f.advance(millis: 44_999)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        let deliveries = f.fireDueTimers()
        var call = ringing
        call.callStatus = .unanswered
        call.endedAt = Fixture.start / 1000 + 45
        #expect(deliveries == [
            delivery(.outgoingCallRejected(call: call, by: nil), a),
            delivery(.incomingCallCanceled(call: call, reason: .unanswered), b),
        ])
        #expect(f.core.activeCallCount == 0)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func aCustomRingTimeoutIsHonoured() throws {
        let ringing = try #require(f.call("bob", from: a[0], timeout: 5).call)
        f.advance(seconds: 5)
        let deliveries = f.fireDueTimers()
        #expect(deliveries.map(\.push.event) == [.onOutgoingCallRejected, .onIncomingCallCanceled])
        #expect(deliveries.map(\.push.sessionId) == [ringing.sessionId, ringing.sessionId])
        guard case .outgoingCallRejected(let call, nil)? = deliveries.first?.push else {
            Issue.record("expected onOutgoingCallRejected without by, got \(deliveries)")
            return
        }
        #expect(call.callStatus == .unanswered)
    }

    @Test(arguments: [0, 1])
    func eitherParticipantEndsAnOngoingCall(enderIndex: Int) throws {
        let ringing = try ring()
        _ = f.accept(ringing.sessionId, from: b[0])
        f.advance(seconds: 60)
        let ender = enderIndex == 0 ? a[0] : b[0]
        let outcome = f.end(ringing.sessionId, from: ender)
        let call = try #require(outcome.call)
        #expect(call.callStatus == .ended)
        #expect(call.endedAt == Fixture.start / 1000 + 60)
        #expect(call.joinedAt == Fixture.start / 1000)
        let others = (a + b).filter { $0 != ender }
        #expect(outcome.deliveries == [
            delivery(.callEndedMessageReceived(call: call, by: enderIndex == 0 ? alice : bob, reason: .hungUp), others),
        ])
        #expect(f.core.activeCallCount == 0)
    }

    @Test func onlyTheCalleeAcceptsOrDeclines() throws {
        let ringing = try ring()
        #expect(f.accept(ringing.sessionId, from: a[1]).reply == .failure(CoreError(
            code: .notParticipant, message: "only a callee accepts a call")))
        #expect(f.accept(ringing.sessionId, from: c).reply == .failure(CoreError(
            code: .notParticipant, message: "this call does not ring you")))
        #expect(f.reject(ringing.sessionId, .rejected, from: a[0]).reply == .failure(CoreError(
            code: .notParticipant, message: "the caller cancels a call with status cancelled")))
        #expect(f.reject(ringing.sessionId, .busy, from: c).errorCode == .notParticipant)
        #expect(f.core.activeCallCount == 1)
    }

    @Test func onlyTheCallerCancels() throws {
        let ringing = try ring()
        #expect(f.reject(ringing.sessionId, .cancelled, from: b[0]).reply == .failure(CoreError(
            code: .notParticipant, message: "only the caller cancels a call")))
        #expect(f.reject(ringing.sessionId, .cancelled, from: c).errorCode == .notParticipant)
    }

    @Test func onlyParticipantsEnd() throws {
        let ringing = try ring()
        #expect(f.end(ringing.sessionId, from: b[0]).reply == .failure(CoreError(
            code: .notParticipant, message: "you are not in this call: accept it first")))
        #expect(f.end(ringing.sessionId, from: c).reply == .failure(CoreError(
            code: .notParticipant, message: "you are not in this call")))
        _ = f.accept(ringing.sessionId, from: b[0])
        #expect(f.end(ringing.sessionId, from: c).errorCode == .notParticipant)
        #expect(f.accept(ringing.sessionId, from: c).errorCode == .notParticipant)
        #expect(f.core.activeCallCount == 1)
    }

    @Test func aCalleeAlreadyInACallCannotAcceptAnother() throws {
        let first = try ring()
        let d = f.connect("dave")
        let second = try #require(f.call("bob", from: d).call)
        _ = f.accept(first.sessionId, from: b[0])
        #expect(f.accept(second.sessionId, from: b[1]).reply == .failure(CoreError(
            code: .callInProgress, message: "you are already ringing someone or in a call")))
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == [first.sessionId, second.sessionId])
    }

    @Test func aRingingCallerCannotAcceptAnIncomingCall() throws {
        let d = f.connect("dave")
        let incoming = try #require(f.call("carol", from: d).call)
        _ = try #require(f.call("erin", from: c).call)
        #expect(f.accept(incoming.sessionId, from: c).errorCode == .callInProgress)
    }

    @Test func terminalCallsAnswerWithTheirOwnError() throws {
        func finished(_ finish: (String) -> Void) throws -> String {
            let call = try #require(f.call("bob", from: a[0]).call)
            finish(call.sessionId)
            return call.sessionId
        }
        let cancelled = try finished { _ = f.reject($0, .cancelled, from: a[0]) }
        let rejected = try finished { _ = f.reject($0, .rejected, from: b[0]) }
        let busy = try finished { _ = f.reject($0, .busy, from: b[0]) }
        let ended = try finished {
            _ = f.accept($0, from: b[0])
            _ = f.end($0, from: b[0])
        }
        let unanswered = try finished { _ in
            f.advance(seconds: 45)
            _ = f.fireDueTimers()
        }
        let cases: [(String, ErrorCode)] = [
            (cancelled, .callCancelled), (rejected, .callRejected), (busy, .callRejected),
            (ended, .callEnded), (unanswered, .callEnded),
        ]
        for (sessionId, code) in cases {
            #expect(f.accept(sessionId, from: b[1]).errorCode == code)
            #expect(f.reject(sessionId, .rejected, from: b[1]).errorCode == code)
            #expect(f.reject(sessionId, .cancelled, from: a[1]).errorCode == code)
            #expect(f.end(sessionId, from: a[1]).errorCode == code)
        }
    }

    @Test(arguments: ["", String(repeating: "x", count: 129), "bad id", "s1/2", "ünï"])
    func malformedSessionIDs(sessionId: String) {
        #expect(f.accept(sessionId, from: b[0]).errorCode == .invalidSessionID)
        #expect(f.reject(sessionId, .rejected, from: b[0]).errorCode == .invalidSessionID)
        #expect(f.end(sessionId, from: a[0]).errorCode == .invalidSessionID)
    }

    @Test(arguments: ["nope", String(repeating: "x", count: 128), "A-z_0.9:x"])
    func wellFormedUnknownSessionIDs(sessionId: String) {
        #expect(f.accept(sessionId, from: b[0]).reply == .failure(CoreError(
            code: .callNotFound, message: "no such call")))
        #expect(f.reject(sessionId, .busy, from: b[0]).errorCode == .callNotFound)
        #expect(f.end(sessionId, from: a[0]).errorCode == .callNotFound)
    }
}
