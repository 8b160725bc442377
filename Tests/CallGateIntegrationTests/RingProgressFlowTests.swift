import CallGateClient
import CallGateCore
import CallGateProtocol
import Testing

/// Ring progress over real sockets: callee devices confirm a ring, every device of the caller
/// hears the count, and nothing more once the call is answered; on one node and across nodes.
@Suite("Ring progress over real sockets")
struct RingProgressFlowTests {
    @Test func everyCallerDeviceHearsTheConfirmedDevicesUntilTheAnswer() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alicePhone = try await gateway.device("alice")
        let aliceLaptop = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")
        let call = try await alicePhone.ring("bob", ringing: [bobPhone, bobLaptop])
        #expect(call.callUUID == CallUUID.of(sessionId: call.sessionId))
        #expect(call.ringExpiresAt.map { $0 >= call.initiatedAt + 45 && $0 <= call.initiatedAt + 46 } == true)

        #expect(try await bobPhone.confirmRinging(call.sessionId) == call)
        #expect(try await bobLaptop.confirmRinging(call.sessionId) == call)
        _ = try await bobLaptop.confirmRinging(call.sessionId)
        for alice in [alicePhone, aliceLaptop] {
            #expect(try await alice.lastProgress(of: call, reaching: 2) == RingProgress(devices: 2, users: 1, ringing: 1, waking: 0))
        }

        let accepted = try await bobLaptop.acceptCall(call.sessionId)
        #expect(accepted.callUUID == call.callUUID && accepted.ringExpiresAt == call.ringExpiresAt)
        for alice in [alicePhone, aliceLaptop] {
            #expect(try await alice.expectPush() == .outgoingCallAccepted(call: accepted, by: User(uid: "bob", name: "Bob")))
        }
        await alicePhone.expectSilence(for: .milliseconds(600))
        await expectError(.callAlreadyJoined) { try await bobLaptop.confirmRinging(call.sessionId) }
        await expectError(.notParticipant) { try await alicePhone.confirmRinging(call.sessionId) }
    }

    @Test func aConfirmedDeviceThatGoesAwayIsTakenOffTheCount() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bobPhone, bobLaptop])
        _ = try await bobPhone.confirmRinging(call.sessionId)
        _ = try await bobLaptop.confirmRinging(call.sessionId)
        _ = try await alice.lastProgress(of: call, reaching: 2)
        await bobLaptop.close()
        #expect(try await alice.lastProgress(of: call, reaching: 1) == RingProgress(devices: 1, users: 1, ringing: 1, waking: 0))
    }

    @Test(.timeLimit(.minutes(2))) func aConfirmOnAnotherNodeReachesTheCallerOnTheOwner() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bobOnB = try await cluster.device("bob", on: "b")
        let carolOnA = try await cluster.device("carol", on: "a")
        let call = try await alice.ring("bob", ringing: [bobOnB])
        #expect(call.callUUID == CallUUID.of(sessionId: call.sessionId))
        _ = try await bobOnB.confirmRinging(call.sessionId)
        #expect(try await alice.lastProgress(of: call, reaching: 1) == RingProgress(devices: 1, users: 1, ringing: 1, waking: 0))
        await expectError(.notParticipant) { try await carolOnA.confirmRinging(call.sessionId) }
        let accepted = try await bobOnB.acceptCall(call.sessionId)
        #expect(accepted.callUUID == call.callUUID)
    }
}

extension CallGateClient {
    /// Reads this caller's `onOutgoingCallRinging` pushes about `call` until one counts
    /// `devices` confirmed devices (coalescing may fold several changes into one push); returns it.
    func lastProgress(of call: Call, reaching devices: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RingProgress {
        while true {
            let push = try await expectPush(sourceLocation: sourceLocation)
            guard case .outgoingCallRinging(let ringing, let progress) = push, ringing.sessionId == call.sessionId else {
                Issue.record("expected onOutgoingCallRinging, got \(push)", sourceLocation: sourceLocation)
                throw ExpectationFailure()
            }
            #expect(ringing == call, sourceLocation: sourceLocation)
            if progress.devices == devices {
                return progress
            }
        }
    }
}
