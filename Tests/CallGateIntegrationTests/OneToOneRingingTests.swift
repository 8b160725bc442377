import CallGateClient
import CallGateProtocol
import Testing

@Suite("1:1 ringing over real sockets")
struct OneToOneRingingTests {
    @Test func acceptRingsEveryDeviceStopsTheOtherAndEndReachesEveryone() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")

        let call = try await alice.initiateCall(to: "bob", callType: .video)
        #expect(call.callStatus == .initiated)
        #expect(call.receiver == .user(User(uid: "bob", name: "Bob")))
        for device in [bobPhone, bobLaptop] {
            #expect(try await device.expectPush() == .incomingCallReceived(call: call))
        }

        let accepted = try await bobPhone.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        #expect(accepted.joinedAt != nil)
        #expect(try await alice.expectPush() == .outgoingCallAccepted(call: accepted, by: User(uid: "bob", name: "Bob")))
        #expect(try await bobLaptop.expectPush() == .incomingCallCanceled(call: accepted, reason: .answeredElsewhere))

        let ended = try await alice.endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        for device in [bobPhone, bobLaptop] {
            #expect(
                try await device.expectPush()
                    == .callEndedMessageReceived(call: ended, by: User(uid: "alice", name: "Alice"), reason: .hungUp))
        }
        await alice.expectSilence()
    }

    @Test func rejectTellsTheCallerAndStopsTheCalleesOtherDevices() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bobPhone, bobLaptop])

        let rejected = try await bobPhone.rejectCall(call.sessionId, status: .rejected)
        #expect(rejected.callStatus == .rejected)
        #expect(try await alice.expectPush() == .outgoingCallRejected(call: rejected, by: User(uid: "bob", name: "Bob")))
        #expect(try await bobLaptop.expectPush() == .incomingCallCanceled(call: rejected, reason: .rejectedElsewhere))

        await #expect(throws: ErrorBody.self) { try await bobLaptop.acceptCall(call.sessionId) }
        do {
            _ = try await bobLaptop.acceptCall(call.sessionId)
        } catch let error as ErrorBody {
            #expect(error.code == .callRejected)
        }
    }

    @Test func callingSomeoneInACallIsBusyAtOnceWithoutRinging() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        _ = try await carol.establishCall(with: bob, uid: "bob")

        let second = try await alice.initiateCall(to: "bob")
        #expect(second.callStatus == .busy)
        #expect(try await alice.expectPush() == .outgoingCallRejected(call: second, by: User(uid: "bob", name: "Bob")))
        await bob.expectSilence()
    }

    @Test func busyCanBeTurnedOffSoTheCallRings() async throws {
        let gateway = try await TestGateway { $0.core.autoBusy = false }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        _ = try await carol.establishCall(with: bob, uid: "bob")

        let second = try await alice.initiateCall(to: "bob")
        #expect(second.callStatus == .initiated)
        #expect(try await bob.expectPush() == .incomingCallReceived(call: second))
    }

    @Test func calleeCanDeclineAsBusy() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        let declined = try await bob.rejectCall(call.sessionId, status: .busy)
        #expect(declined.callStatus == .busy)
        #expect(try await alice.expectPush() == .outgoingCallRejected(call: declined, by: User(uid: "bob", name: "Bob")))
    }

    @Test func callerCancelStopsEveryRingingDevice() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bobPhone, bobLaptop])

        let cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)
        #expect(cancelled.callStatus == .cancelled)
        for device in [bobPhone, bobLaptop] {
            #expect(try await device.expectPush() == .incomingCallCanceled(call: cancelled, reason: .cancelled))
        }
    }

    @Test func anUnansweredCallTimesOut() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 1)

        let rejected = try await alice.expectPush(within: .seconds(5))
        guard case .outgoingCallRejected(let unanswered, let by) = rejected else {
            Issue.record("expected onOutgoingCallRejected, got \(rejected)")
            return
        }
        #expect(unanswered.sessionId == call.sessionId)
        #expect(unanswered.callStatus == .unanswered)
        #expect(by == nil)
        #expect(try await bob.expectPush() == .incomingCallCanceled(call: unanswered, reason: .unanswered))
    }

    @Test func aCallerWhoVanishesIsCancelledAfterTheGracePeriod() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        await alice.close()

        let push = try await bob.expectPush(within: .seconds(5))
        guard case .incomingCallCanceled(let cancelled, .cancelled) = push else {
            Issue.record("expected onIncomingCallCanceled(cancelled), got \(push)")
            return
        }
        #expect(cancelled.sessionId == call.sessionId)
        #expect(cancelled.callStatus == .cancelled)
    }

    @Test func aReconnectingDeviceSeesTheCallStillRinging() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        await bob.close()

        let bobAgain = try await gateway.socket()
        let result = try await bobAgain.connect(token: try await gateway.token("bob"))
        #expect(result.user.uid == "bob")
        #expect(result.activeCalls.map(\.sessionId) == [call.sessionId])
        #expect(result.activeCalls.first?.callStatus == .initiated)
        let accepted = try await bobAgain.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
    }

    @Test func anOngoingCallEndsWhenOneSideVanishes() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        _ = try await alice.establishCall(with: bob, uid: "bob")
        await bob.close()

        let push = try await alice.expectPush(within: .seconds(5))
        guard case .callEndedMessageReceived(let ended, let by, .disconnected) = push else {
            Issue.record("expected onCallEndedMessageReceived(disconnected), got \(push)")
            return
        }
        #expect(ended.callStatus == .ended)
        #expect(by?.uid == "bob")
    }

    @Test func opsOnCallsThatAreNotYoursAreRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let mallory = try await gateway.device("mallory")
        let call = try await alice.ring("bob", ringing: [bob])

        for attempt in [
            { try await mallory.acceptCall(call.sessionId) },
            { try await mallory.endCall(call.sessionId) },
            { try await bob.rejectCall(call.sessionId, status: .cancelled) },
        ] as [@Sendable () async throws -> Call] {
            do {
                _ = try await attempt()
                Issue.record("expected ERR_NOT_PARTICIPANT")
            } catch let error as ErrorBody {
                #expect(error.code == .notParticipant)
            }
        }
        await expectError(.callingSelf) { try await alice.initiateCall(to: "alice") }
        await expectError(.callInProgress) { try await alice.initiateCall(to: "mallory") }
        await expectError(.callNotFound) { try await bob.acceptCall("v1.nosuchcall") }
        await expectError(.invalidSessionID) { try await bob.acceptCall("not a session id!") }
    }
}

/// Runs `body` and expects the gateway to answer with `code`.
func expectError(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code.rawValue), got success", sourceLocation: sourceLocation)
    } catch let error as ErrorBody {
        #expect(error.code == code, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
}
