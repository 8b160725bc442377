import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Reconnects lose nothing in a cluster either: a user's pushes are numbered once, in Redis,
/// so every device of theirs sees the same `seq` on whichever node it is, and a device that
/// dropped on one node and comes back on another is given what it missed from the user's
/// stream, with a ring that still rings (on a third node's call) replayed and answerable.
@Suite(.serialized) struct ClusterRecoveryTests {
    @Test func aDeviceThatDroppedOnOneNodeRecoversWhatItMissedOnAnother() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let (bob, first) = try await cluster.connect("bob", on: "b")
        let (bobStaying, second) = try await cluster.connect("bob", on: "a")
        #expect(second.epoch == first.epoch && second.seq == first.seq, "one sequence for the user on every node")

        let call = try await alice.ring("bob", ringing: [bob, bobStaying], timeout: 60)
        #expect(bob.recoveryPoint?.seq == bobStaying.recoveryPoint?.seq, "the ring has one number on both nodes")
        let point = try await bob.dropped()
        let cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)
        #expect(try await bobStaying.expectPush() == .incomingCallCanceled(call: cancelled, reason: .cancelled))

        #expect(try await bobStaying.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))

        // The cancel, then the count of bob's missed calls it raised.
        let (back, result) = try await cluster.connect("bob", on: "c", recovering: point)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: true, missed: 2))
        #expect(result.epoch == point.epoch && result.seq == point.seq + 2)
        #expect(result.seq == bobStaying.recoveryPoint?.seq)
        #expect(result.activeCalls.isEmpty)
        #expect(try await back.expectPush() == .incomingCallCanceled(call: cancelled, reason: .cancelled))
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        await back.expectSilence(includingMissedCalls: true)
        #expect(back.recoveryPoint?.seq == result.seq)

        // A position in no sequence of the user's recovers nothing; the device starts afresh.
        let stranger = RecoverParams(epoch: "not-an-epoch", seq: 1)
        let (_, fresh) = try await cluster.connect("bob", on: "b", recovering: stranger)
        #expect(fresh.recovery == Recovery(epoch: first.epoch, recovered: false, missed: 0))
        // Nor does one ahead of the sequence.
        let ahead = RecoverParams(epoch: first.epoch, seq: result.seq + 5)
        let (_, afresh) = try await cluster.connect("bob", on: "c", recovering: ahead)
        #expect(afresh.recovery?.recovered == false)
    }

    @Test func aRingOfAnotherNodeMissedWhileAwayIsReplayedAndAnsweredWhereTheDeviceCameBack() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let point = try await bob.dropped()
        let call = try await alice.initiateCall(to: "bob", timeout: 60)

        let (back, result) = try await cluster.connect("bob", on: "c", recovering: point)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: true, missed: 1))
        #expect(result.activeCalls.map(\.sessionId) == [call.sessionId])
        #expect(try await back.expectPush() == .incomingCallReceived(call: call), "the ring of node a's call, replayed on c")
        let accepted = try await back.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        guard case .outgoingCallAccepted(accepted, _) = try await alice.expectPush() else {
            Issue.record("alice did not hear the accept")
            return
        }
    }

    @Test func aRingThatStoppedWhileAwayIsReplayedWithWhatStoppedIt() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "a")
        let point = try await bob.dropped()
        let call = try await alice.initiateCall(to: "bob", timeout: 60)
        try await Task.sleep(for: .milliseconds(100))
        let ended = try await alice.rejectCall(call.sessionId, status: .cancelled)

        let (back, result) = try await cluster.connect("bob", on: "b", recovering: point)
        #expect(result.recovery?.missed == 3)
        #expect(try await back.expectPush() == .incomingCallReceived(call: call))
        #expect(try await back.expectPush() == .incomingCallCanceled(call: ended, reason: .cancelled))
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
        await back.expectSilence(includingMissedCalls: true)
        #expect(back.recoveryPoint?.seq == point.seq + 3)
    }

    @Test func aDeviceWhoseSequenceBrokeIsClosedWith4011AndRecoversWhatIsKept() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let point = try #require(bob.recoveryPoint)

        // Pushes numbered that never reached node b (as if its subscription had missed them).
        _ = try cluster.redis.command("HINCRBY", "cg:{u:bob}:seq", "seq", "2")
        _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
        guard case .closed = await bob.nextEvent(timeout: .seconds(5)) else {
            Issue.record("bob's device should be closed at the gap")
            return
        }
        #expect(bob.closeCode == CloseCode.sequenceBroken)
        let (back, result) = try await cluster.connect("bob", on: "b", recovering: point)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: false, missed: 0), "the gap is not kept")
        // The two lost numbers, the cancel, and the count of bob's missed calls it raised.
        #expect(result.seq == point.seq + 4 && result.activeCalls.isEmpty)
        await back.expectSilence()

        // Redis lost bob's sequence while his device was connected: a push begins a new epoch,
        // which closes the device too; it comes back in the new epoch.
        _ = try cluster.redis.command("DEL", "cg:{u:bob}:seq")
        _ = try await alice.initiateCall(to: "bob", timeout: 60)
        guard case .closed = await back.nextEvent(timeout: .seconds(5)) else {
            Issue.record("bob's device should be closed at the new epoch")
            return
        }
        #expect(back.closeCode == CloseCode.sequenceBroken)
        let resume = try #require(back.recoveryPoint)
        let (_, again) = try await cluster.connect("bob", on: "a", recovering: resume)
        #expect(again.recovery?.recovered == false && again.epoch != point.epoch && again.seq == 1)
        #expect(again.activeCalls.count == 1)
    }

    @Test func aDeviceWhoseNodeMissedPushesWithNoneAfterIsClosedOnceItListensAgain() async throws {
        let (redis, urls) = try ClusterPresenceTests.redisWithUserPerNode()
        let cluster = try await RoutingCluster(["a", "b"], [], redis: redis, redisURLs: urls)
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let point = try #require(bob.recoveryPoint)

        // Alice cancels while node b's subscription is cut: b never hears the cancel, and no
        // later push of bob's comes to show the gap. Once b listens again it finds bob's
        // sequence ahead of his device and closes it, so that it recovers the cancel.
        var cancelled: Call?
        try await ClusterPresenceTests.cut("node-b", of: redis, for: .milliseconds(1500)) {
            cancelled = try await alice.rejectCall(call.sessionId, status: .cancelled)
        }
        guard case .closed = await bob.nextEvent(timeout: .seconds(10)) else {
            Issue.record("bob's device should be closed once node b listens again")
            return
        }
        #expect(bob.closeCode == CloseCode.sequenceBroken)
        let (back, result) = try await cluster.connect("bob", on: "b", recovering: point)
        #expect(result.recovery == Recovery(epoch: point.epoch, recovered: true, missed: 2))
        #expect(try await back.expectPush() == .incomingCallCanceled(call: try #require(cancelled), reason: .cancelled))
        #expect(try await back.expectMissedCalls() == MissedCalls(unseen: 1, revision: 1))
    }
}
