import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Foundation
import TestSupport
import Testing

/// What every fabric promises, checked the same way on `LocalFabric` and on `ClusterFabric`
/// (on a real Redis and PostgreSQL), through a gateway in this process and without sockets:
/// publishing (every device of a user gets each push once, in order, numbered per user),
/// recalling what a device missed, the device cap, the call starts per minute, busy users,
/// ops on a call run where the call lives, and readiness.
@Suite(.serialized) struct FabricConformanceTests {
    /// A ring for `receiver`.
    static func ring(_ receiver: String = "bob") -> [String: Any] {
        ["receiverId": receiver, "receiverType": "user", "callType": "audio"]
    }

    private func withFixture(
        _ kind: FabricFixture.Kind, _ adjust: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (FabricFixture) async throws -> Void
    ) async throws {
        let fixture = try await FabricFixture.start(kind, adjust)
        defer { fixture.stop() }
        try await body(fixture)
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func aPushReachesEveryDeviceOfItsUsersOnceInOrderNumberedPerUser(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind) { fixture in
            let (phone, _) = try await fixture.device("alice")
            let (tablet, _) = try await fixture.device("alice")
            let (bob, connected) = try await fixture.device("bob")
            let first = connected.result["seq"] as? Int ?? -1
            let call = try await phone.ask("initiateCall", Self.ring()).result
            let sessionId = try #require(call["sessionId"] as? String)
            #expect(try await eventually(within: 5, every: .milliseconds(10)) { await bob.pushes().count == 1 })
            let ring = try #require(await bob.pushes().first)
            #expect(ring["event"] as? String == "onIncomingCallReceived" && ring["seq"] as? Int == first + 1)
            _ = try await bob.ask("rejectCall", ["sessionId": sessionId, "status": "rejected"])
            #expect(try await eventually(within: 5, every: .milliseconds(10)) {
                let onPhone = await phone.pushes().count
                let onTablet = await tablet.pushes().count
                return onPhone == 1 && onTablet == 1
            })
            for device in [phone, tablet] {
                let pushes = await device.pushes()
                #expect(pushes.map { $0["event"] as? String } == ["onOutgoingCallRejected"])
            }
            let phoneSeq = await phone.pushes().first?["seq"] as? Int
            let tabletSeq = await tablet.pushes().first?["seq"] as? Int
            #expect(phoneSeq != nil && phoneSeq == tabletSeq, "one number per user")
            try await Task.sleep(for: .milliseconds(200))
            let bobsPushes = await bob.pushes().count
            #expect(bobsPushes == 1, "the decliner's own push is its reply, not a push to itself")
        }
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func aDeviceThatComesBackWithRecoverGetsWhatItMissedUnderItsNumbers(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind, { $0.core.callerGracePeriod = .seconds(5) }) { fixture in
            let (bob, connected) = try await fixture.device("bob")
            let epoch = try #require(connected.result["epoch"] as? String)
            let seq = try #require(connected.result["seq"] as? Int)
            let connectionId = try #require(connected.result["connectionId"] as? String)
            await bob.close()
            let (alice, _) = try await fixture.device("alice")
            _ = try await alice.ask("initiateCall", Self.ring())
            let (back, reply) = try await fixture.device(
                "bob", recover: ["epoch": epoch, "seq": seq, "connectionId": connectionId])
            let recovery = reply.result["recovery"] as? [String: Any]
            #expect(recovery?["recovered"] as? Bool == true && recovery?["missed"] as? Int == 1)
            #expect(try await eventually(within: 5, every: .milliseconds(10)) { await back.pushes().count == 1 })
            let replayed = await back.pushes().first
            #expect(replayed?["event"] as? String == "onIncomingCallReceived" && replayed?["seq"] as? Int == seq + 1)
            let (stranger, unknown) = try await fixture.device("bob", recover: ["epoch": "not-an-epoch", "seq": 3])
            #expect((unknown.result["recovery"] as? [String: Any])?["recovered"] as? Bool == false)
            #expect(await stranger.closeCode() == nil)
        }
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func theDeviceCapHoldsAndAFreedSlotIsTakenAgain(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind, { $0.maxDevicesPerUser = 2 }) { fixture in
            let (first, _) = try await fixture.device("carol")
            _ = try await fixture.device("carol")
            let (refused, reply) = try await fixture.device("carol")
            #expect(reply.errorCode == ErrorCode.tooManyDevices.rawValue)
            #expect(try await eventually(within: 5, every: .milliseconds(10)) { await refused.closeCode() == CloseCode.tooManyDevices })
            await first.close()
            #expect(try await eventually(within: 5, every: .milliseconds(10)) {
                (try? await fixture.device("carol").reply.errorCode) == .some(nil)
            }, "the slot a closed device held is free again")
        }
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func callStartsPerMinuteAreCapped(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind, { $0.core.maxCallsPerMinute = 2 }) { fixture in
            let (alice, _) = try await fixture.device("alice")
            for _ in 0..<2 {
                let call = try await alice.ask("initiateCall", Self.ring()).result
                let sessionId = try #require(call["sessionId"] as? String)
                #expect(try await alice.ask("endCall", ["sessionId": sessionId]).errorCode == nil)
            }
            #expect(try await alice.ask("initiateCall", Self.ring()).errorCode == ErrorCode.rateLimited.rawValue)
        }
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func aUserInACallIsBusyForAnotherAndOpsOnTheCallRunWhereItLives(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind) { fixture in
            let (alice, _) = try await fixture.device("alice")
            let (bob, _) = try await fixture.device("bob")
            let call = try await alice.ask("initiateCall", Self.ring()).result
            let sessionId = try #require(call["sessionId"] as? String)
            let accepted = try await bob.ask("acceptCall", ["sessionId": sessionId])
            #expect(accepted.result["callStatus"] as? String == "ongoing")
            let again = Self.ring("dave")
            #expect(try await alice.ask("initiateCall", again).errorCode == ErrorCode.callInProgress.rawValue)
            #expect(try await bob.ask("initiateCall", again).errorCode == ErrorCode.callInProgress.rawValue)
            #expect(try await bob.ask("endCall", ["sessionId": sessionId]).result["callStatus"] as? String == "ended")
            #expect(try await alice.ask("initiateCall", again).errorCode == nil, "a call that ended engages nobody")
        }
    }

    @Test(arguments: FabricFixture.Kind.allCases)
    func aJoinedNodeIsReadyAndRunsItsCalls(kind: FabricFixture.Kind) async throws {
        try await withFixture(kind) { fixture in
            let (ready, runs, clustered) = await fixture.onServiceThread { [fixture] in
                (fixture.service.fabric.unreadiness(), fixture.service.fabric.mayRunCalls(), fixture.service.fabric is ClusterFabric)
            }
            #expect(ready == nil && runs)
            #expect(clustered == (kind == .cluster), "the gateway runs on the fabric under test")
        }
    }
}
