import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// Missed calls in sync over real sockets: every device of the callee hears the count of unseen
/// missed calls go up when a call is missed and down when any device marks them seen; a device
/// that connects is told the count; the call log shows which are seen; on one node and across
/// nodes.
@Suite("Missed calls over real sockets")
struct MissedCallFlowTests {
    @Test func everyDeviceHearsTheCountAndAnyDeviceMarksItSeen() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bobPhone = try await gateway.device("bob")
        let bobLaptop = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bobPhone, bobLaptop])
        let cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)
        for bob in [bobPhone, bobLaptop] {
            #expect(try await bob.expectPush(includingMissedCalls: true) == .incomingCallCanceled(call: cancelled, reason: .cancelled))
            #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        }
        await alice.expectSilence(for: .milliseconds(100), includingMissedCalls: true)

        let tablet = try await gateway.socket()
        let connected = try await tablet.connect(token: try await gateway.token("bob"))
        #expect(connected.missedCalls == MissedCalls(unseen: 1, revision: 1))
        let unseen = try #require(try await gateway.callLogs("bob").data.first)
        #expect(unseen.missed == true && unseen.seen == false)
        #expect(try await gateway.callLogs("bob").meta.missedCalls == MissedCalls(unseen: 1, revision: 1))

        #expect(try await bobPhone.markCallsSeen() == MissedCalls(unseen: 0, revision: 2))
        for bob in [bobPhone, bobLaptop, tablet] {
            #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 0, revision: 2))
        }
        #expect(try await bobLaptop.markCallsSeen() == MissedCalls(unseen: 0, revision: 2), "nothing left to mark")
        await bobPhone.expectSilence(for: .milliseconds(300), includingMissedCalls: true)
        // Nor once the count's interval is over: marking nothing is no change.
        try await Task.sleep(for: .milliseconds(1200))
        #expect(try await bobLaptop.markCallsSeen() == MissedCalls(unseen: 0, revision: 2))
        await bobPhone.expectSilence(for: .milliseconds(300), includingMissedCalls: true)
        let log = try #require(try await gateway.callLogs("bob").data.first)
        #expect(log.missed == true && log.seen == true)
        let outgoing = try #require(try await gateway.callLogs("alice").data.first)
        #expect(outgoing.missed == nil && outgoing.seen == nil, "the caller missed nothing")
        #expect(try await alice.markCallsSeen() == MissedCalls(unseen: 0, revision: 0))
    }

    @Test func callsAreMarkedSeenUpToAGivenCall() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        var missed: [Call] = []
        for _ in 0..<3 {
            let call = try await alice.ring("bob", ringing: [bob])
            _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
            _ = try await bob.expectPush(includingMissedCalls: true)
            if missed.isEmpty {
                #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
            }
            missed.append(call)
        }
        // The two later changes came within the first one's interval: one push tells both.
        #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 3, revision: 3))
        #expect(try await bob.markCallsSeen(through: missed[1].sessionId).unseen == 1)
        let logs = try await gateway.callLogs("bob").data
        #expect(logs.map(\.sessionId) == missed.reversed().map(\.sessionId))
        #expect(logs.map(\.seen) == [false, true, true])

        await expectError(.callNotFound) { try await bob.markCallsSeen(through: "v1.0123456789abcdef0123456789abcdef") }
        await expectError(.invalidSessionID) { try await bob.markCallsSeen(through: "not a session id") }
        let carol = try await gateway.device("carol")
        // A call of someone else's log.
        await expectError(.callNotFound) { try await carol.markCallsSeen(through: missed[0].sessionId) }
        #expect(try await bob.markCallsSeen().unseen == 0)
    }

    @Test func aDeclineAsBusyIsMissedAndAPlainDeclineIsNot() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let declined = try await alice.ring("bob", ringing: [bob])
        _ = try await bob.rejectCall(declined.sessionId, status: .rejected)
        let busy = try await alice.ring("bob", ringing: [bob])
        _ = try await bob.rejectCall(busy.sessionId, status: .busy)
        #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        await bob.expectSilence(for: .milliseconds(200), includingMissedCalls: true)
    }

    @Test(.timeLimit(.minutes(2))) func theCountIsInSyncAcrossNodes() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bobOnA = try await cluster.device("bob", on: "a")
        let bobOnB = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bobOnA, bobOnB])
        let cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)
        for bob in [bobOnA, bobOnB] {
            #expect(try await bob.expectPush(includingMissedCalls: true) == .incomingCallCanceled(call: cancelled, reason: .cancelled))
            #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        }
        let (tablet, connected) = try await cluster.connect("bob", on: "b")
        #expect(connected.missedCalls == MissedCalls(unseen: 1, revision: 1))

        #expect(try await bobOnB.markCallsSeen() == MissedCalls(unseen: 0, revision: 2))
        for bob in [bobOnB, tablet, bobOnA] {
            #expect(try await bob.expectMissedCalls() == MissedCalls(unseen: 0, revision: 2))
        }
    }
}
