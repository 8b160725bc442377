import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import TestSupport
import Testing

/// Reconnects lose nothing: a device that drops without a close frame and connects again with
/// `recover` is given every push it missed, in order, with their original `seq`; a ring for a
/// call that no longer rings it comes with what ended it; the sessions it had joined survive a
/// blip within the participant grace period, and the others see nothing.
@Suite("Recovery over real sockets")
struct RecoveryTests {
    /// A gateway whose participant grace period outlasts the blips below.
    static func gateway(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestGateway {
        try await TestGateway {
            $0.core.participantGracePeriod = .seconds(5)
            $0.core.callerGracePeriod = .seconds(5)
            adjust(&$0)
        }
    }

    /// Connects a new device of `uid` that recovers from `point`.
    func recovering(
        _ uid: String, from point: RecoverParams?, on gateway: TestGateway
    ) async throws -> (CallGateClient, ConnectResult) {
        let device = try await gateway.socket()
        let result = try await device.connect(token: try await gateway.token(uid), recover: point)
        return (device, result)
    }

    @Test func aCancelMissedDuringARingIsReplayedAndNothingRings() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        let point = try await bob.dropped()
        #expect(point.seq == 1)
        let cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)

        // The cancel, then the count of bob's missed calls it raised.
        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: true, missed: 2))
        #expect(result.epoch == point.epoch)
        #expect(result.seq == 3)
        #expect(result.activeCalls.isEmpty)
        #expect(try await back.expectPush() == .incomingCallCanceled(call: cancelled, reason: .cancelled))
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        await back.expectSilence(includingMissedCalls: true)
        #expect(back.recoveryPoint?.seq == 3)
    }

    @Test func aRingAndItsCancelBothMissedAreReplayedInOrderAndReportTheMissedCall() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let point = try await bob.dropped()
        let call = try await alice.initiateCall(to: "bob")
        try await Task.sleep(for: .milliseconds(100))
        let ended = try await alice.rejectCall(call.sessionId, status: .cancelled)

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery?.missed == 3)
        #expect(try await back.expectPush() == .incomingCallReceived(call: call))
        #expect(try await back.expectPush() == .incomingCallCanceled(call: ended, reason: .cancelled))
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        #expect(back.recoveryPoint?.seq == 3)
    }

    /// Three calls missed while away, each raising bob's count: the replay gives every ring and
    /// cancel but only the newest count, `missed` counts what follows, and the device's position
    /// ends at the result's `seq` across the numbers of the counts left out.
    @Test func onlyTheNewestMissedCallCountIsReplayed() async throws {
        let gateway = try await Self.gateway { $0.core.missedCallsInterval = .milliseconds(50) }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let point = try await bob.dropped()
        var expected: [Push] = []
        for _ in 0..<3 {
            let call = try await alice.initiateCall(to: "bob")
            let ended = try await alice.rejectCall(call.sessionId, status: .cancelled)
            expected += [.incomingCallReceived(call: call), .incomingCallCanceled(call: ended, reason: .cancelled)]
            try await Task.sleep(for: .milliseconds(300))
        }
        try await Task.sleep(for: .seconds(1))

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery?.recovered == true)
        #expect(result.recovery?.missed == 7, "six ring and cancel pushes, and one count")
        #expect(result.seq >= point.seq + 8, "the counts left out took numbers: at least two were pushed")
        for push in expected {
            #expect(try await back.expectPush(includingMissedCalls: true) == push, "no replaced count in between")
        }
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 3, revision: 3))
        await back.expectSilence(includingMissedCalls: true)
        #expect(back.recoveryPoint?.seq == result.seq)
    }

    @Test func aRingStillRingingIsReplayedAndCanBeAnswered() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let point = try await bob.dropped()
        let call = try await alice.initiateCall(to: "bob")

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery?.recovered == true)
        #expect(result.activeCalls == [call])
        #expect(try await back.expectPush() == .incomingCallReceived(call: call))
        _ = try await back.acceptCall(call.sessionId)
        #expect(try await alice.expectPush().event == .onOutgoingCallAccepted)
    }

    @Test func aGroupRingAnsweredOnAnotherDeviceIsReplayedWithTheCancel() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("crew", members: ["ann", "ben", "cat"])
        let ann = try await gateway.device("ann")
        let phone = try await gateway.device("ben")
        let laptop = try await gateway.device("ben")
        let cat = try await gateway.device("cat")
        let point = try await phone.dropped()
        let call = try await ann.initiateCall(to: "crew", receiverType: .group)
        #expect(try await laptop.expectPush() == .incomingCallReceived(call: call))
        #expect(try await cat.expectPush() == .incomingCallReceived(call: call))
        let answered = try await laptop.acceptCall(call.sessionId)

        let (back, result) = try await recovering("ben", from: point, on: gateway)
        #expect(result.recovery?.missed == 2)
        #expect(try await back.expectPush() == .incomingCallReceived(call: call))
        #expect(try await back.expectPush() == .incomingCallCanceled(call: answered, reason: .answeredElsewhere))
        #expect(result.activeCalls.map(\.callStatus) == [.ongoing])
    }

    @Test func aRingTheDeviceAnsweredItselfBeforeDroppingIsReplayedAsItsCancel() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let start = try #require(bob.recoveryPoint)
        let call = try await alice.ring("bob", ringing: [bob])
        let answered = try await bob.acceptCall(call.sessionId)
        _ = try await bob.dropped()

        let (back, result) = try await recovering("bob", from: start, on: gateway)
        #expect(result.recovery == Recovery(epoch: start.epoch, recovered: true, missed: 1))
        guard case .incomingCallCanceled(let cancelled, .answeredElsewhere) = try await back.expectPush() else {
            Issue.record("the replayed ring should have become its cancel")
            return
        }
        #expect(cancelled.sessionId == answered.sessionId)
        #expect(cancelled.callStatus == .ongoing)
        #expect(result.seq == 2)
    }

    @Test func aBlipDuringACallEndsNothingAndTheOtherSideSeesNothing() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.establishCallInSession(with: bob, uid: "bob")
        let point = try await bob.dropped()
        _ = try await alice.setMuted(call.sessionId, audio: true)

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(result.recovery?.missed == 1)
        #expect(try await back.expectPush().event == .onUserMuted)
        try await Task.sleep(for: .seconds(6))
        await alice.expectSilence()
        let session = try await back.setMuted(call.sessionId, video: true)
        #expect(session.participants.map(\.uid) == ["alice", "bob"])
        #expect(try await alice.expectPush().event == .onUserMuted)
        #expect(try await alice.endCall(call.sessionId).callStatus == .ended)
    }

    @Test func aConnectionTheGatewayStillHoldsIsReplacedWith4010() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let stale = try await gateway.device("bob")
        let call = try await alice.establishCallInSession(with: stale, uid: "bob")
        let point = try #require(stale.recoveryPoint)

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: true, missed: 0))
        #expect(result.resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(try await stale.expectClose() == CloseCode.replaced)
        _ = try await back.setMuted(call.sessionId, audio: true)
        #expect(try await alice.expectPush().event == .onUserMuted)
        await alice.expectSilence()
    }

    @Test func tooLateTheSequenceBeganAgainAndTheDeviceRebuildsFromActiveCalls() async throws {
        let gateway = try await Self.gateway { $0.history.windowMillis = 300 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let point = try await bob.dropped()
        let call = try await alice.initiateCall(to: "bob")
        try await Task.sleep(for: .milliseconds(800))

        let (back, result) = try await recovering("bob", from: point, on: gateway)
        #expect(result.recovery == Recovery(epoch: result.epoch, recovered: false, missed: 0))
        #expect(result.epoch != point.epoch)
        #expect(result.seq == 0)
        #expect(result.activeCalls == [call])
        await back.expectSilence()
    }

    @Test func aWrongEpochOrASeqAheadDoesNotRecover() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let bob = try await gateway.device("bob")
        let point = try #require(bob.recoveryPoint)
        let (_, wrong) = try await recovering("bob", from: RecoverParams(epoch: "elsewhere-1", seq: 0), on: gateway)
        #expect(wrong.recovery == Recovery(epoch: point.epoch, recovered: false, missed: 0))
        let (_, ahead) = try await recovering("bob", from: RecoverParams(epoch: point.epoch, seq: 5), on: gateway)
        #expect(ahead.recovery?.recovered == false)
        let (_, other) = try await recovering("carol", from: point, on: gateway)
        #expect(other.recovery?.recovered == false)
    }

    @Test func twoDevicesRecoveringAtOnceGetTheSamePushesWithTheSameSeq() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let phone = try await gateway.device("bob")
        let laptop = try await gateway.device("bob")
        let phonePoint = try await phone.dropped()
        let laptopPoint = try await laptop.dropped()
        let call = try await alice.initiateCall(to: "bob")
        _ = try await alice.rejectCall(call.sessionId, status: .cancelled)

        async let first = recovering("bob", from: phonePoint, on: gateway)
        async let second = recovering("bob", from: laptopPoint, on: gateway)
        let devices = try await [first, second]
        for (device, result) in devices {
            #expect(result.recovery?.missed == 3)
            #expect(try await device.expectPush().event == .onIncomingCallReceived)
            #expect(try await device.expectPush().event == .onIncomingCallCanceled)
            #expect(try await device.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
            #expect(device.recoveryPoint?.seq == 3)
        }
    }

    @Test func replayedPushesComeBeforeNewOnesAndTheSeqRunsOnWithoutAGap() async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let recorder = FrameRecorder()
        try await gateway.putGroup("crew", members: ["ann", "ben"])
        let ann = try await gateway.device("ann")
        let ben = try await gateway.device("ben")
        let point = try await ben.dropped()
        for _ in 0..<5 {
            let call = try await ann.initiateCall(to: "crew", receiverType: .group)
            _ = try await ann.rejectCall(call.sessionId, status: .cancelled)
        }
        let back = try await gateway.socket(recorder: recorder)
        async let connected = back.connect(token: try await gateway.token("ben"), recover: point)
        async let rung = ann.initiateCall(to: "crew", receiverType: .group)
        let (result, call) = try await (connected, rung)
        // Five rings and their cancels, at least one count of ben's missed calls (the later ones
        // coalesced, at the end of its interval), maybe the new ring.
        let missed = try #require(result.recovery?.missed)
        #expect(missed >= 11 && missed <= 16)
        var events: [EventName] = []
        while events.count < 11 {
            events.append(try await back.expectPush().event)
        }
        #expect(events.last == .onIncomingCallReceived)
        let seqs = recorder.recorded.compactMap { entry -> UInt64? in
            guard entry.direction == .received, case .push(_, let seq, _)? = try? ServerFrame.decode(entry.frame) else {
                return nil
            }
            return seq
        }
        #expect(seqs.count >= 12 && seqs == Array(1...UInt64(seqs.count)))
        _ = try await ann.rejectCall(call.sessionId, status: .cancelled)
    }

    @Test(arguments: [
        (#"{"epoch":"e","seq":-1}"#, "data.recover.seq: expected a whole number from 0 to 9007199254740991"),
        (#"{"epoch":"e","seq":1.5}"#, "data.recover.seq: expected a whole number from 0 to 9007199254740991"),
        (#"{"epoch":"e","seq":9007199254740992}"#, "data.recover.seq: expected a whole number from 0 to 9007199254740991"),
        (#"{"epoch":"e"}"#, "data.recover.seq: expected a whole number from 0 to 9007199254740991"),
        (#"{"seq":1}"#, "data.recover.epoch: missing, expected a string"),
        (#"{"epoch":"\#(String(repeating: "e", count: 65))","seq":1}"#, "data.recover.epoch: at most 64 bytes"),
        (#"{"epoch":"e","seq":1,"connectionId":"abc"}"#, "data.recover.connectionId: expected the connectionId of an earlier connect result"),
        (#"{"epoch":"e","seq":1,"connectionId":"99999999999999999999"}"#, "data.recover.connectionId: expected the connectionId of an earlier connect result"),
        (#"{"epoch":"e","seq":1,"connectionId":"+1"}"#, "data.recover.connectionId: expected the connectionId of an earlier connect result"),
        (#"[1]"#, "data.recover: expected an object"),
    ])
    func outOfBoundsRecoverIsRefusedNamingTheField(recover: String, message: String) async throws {
        let gateway = try await Self.gateway()
        defer { gateway.shutdown() }
        let socket = try await gateway.socket()
        let token = try await gateway.token("bob")
        socket.sendRaw(#"{"id":"1","op":"connect","data":{"token":"\#(token)","recover":\#(recover)}}"#)
        guard case .unmatchedReply("1", .failure(let error)) = try await socket.expectEvent() else {
            Issue.record("expected an error reply")
            return
        }
        #expect(error == ErrorBody(code: .badRequest, message: message))
    }
}
