import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// A node killed with its calls loses none: a survivor takes them over from PostgreSQL under a
/// raised epoch, the rings go on and can be answered, the calls can be ended, devices that
/// reconnect elsewhere see them in `activeCalls`, and each call gets one terminal status.
@Suite(.serialized) struct ClusterTakeoverTests {
    /// The node that owns `sessionId` in the database, and its epoch, once it is not `node`.
    private func owner(of sessionId: String, after node: String, in cluster: RoutingCluster) async throws -> String? {
        var found: String?
        _ = try await eventually(within: 10) {
            let rows = try await databaseRows(
                cluster.database, "SELECT owner_node, owner_epoch FROM calls WHERE session_id = '\(sessionId)'")
            found = rows.first { !$0.hasPrefix("\(node)|") }
            return found != nil
        }
        return found
    }

    /// Waits until the call log has `sessionId` as `status`: a node killed before its writer
    /// committed a change loses it, as one process does.
    private func durable(_ sessionId: String, as status: String, in cluster: RoutingCluster) async throws {
        #expect(try await eventually(within: 5) {
            try await databaseRows(cluster.database, "SELECT status FROM calls WHERE session_id = '\(sessionId)'") == [status]
        })
    }

    @Test func aRingWhoseOwnerWasKilledGoesOnAndIsAnsweredAndEnded() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        try await durable(call.sessionId, as: "initiated", in: cluster)
        try #require(cluster.nodes["a"]).kill()
        let (aliceOnC, reconnected) = try await cluster.connect("alice", on: "c")
        #expect(reconnected.activeCalls.map(\.sessionId) == [call.sessionId])
        let owner = try await owner(of: call.sessionId, after: "a", in: cluster)
        #expect(owner == "b|1" || owner == "c|1", "a survivor owns the call under epoch 1: \(String(describing: owner))")

        // Past the caller's grace period (10 s, from the takeover): her device on node c was
        // announced to the new owner, so the call still rings.
        try await Task.sleep(for: .seconds(11))
        await bob.expectSilence()
        let accepted = try await bob.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        guard case .outgoingCallAccepted(_, let by) = try await aliceOnC.expectPush() else {
            Issue.record("alice expected the accept on her new device")
            return
        }
        #expect(by.uid == "bob")
        let ended = try await aliceOnC.endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        #expect(try await bob.expectPush().event == .onCallEndedMessageReceived)
        let rows = try await databaseRows(cluster.database, "SELECT status FROM calls WHERE session_id = '\(call.sessionId)'")
        #expect(rows == ["ended"], "one row, one terminal status")
    }

    @Test func aRingHeardJustBeforeItsOwnerWasKilledIsTakenOverAndOneNobodyHeardIsGone() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")

        // While PostgreSQL cannot commit the call, nobody hears of it: killed then, node a takes
        // a call with it that no client knew.
        let lock = try TableLockHolder(database: cluster.database, table: "calls")
        let unheard = Task { try await alice.initiateCall(to: "bob", timeout: 60) }
        await bob.expectSilence(for: .milliseconds(800))
        try #require(cluster.nodes["a"]).kill()
        lock.release()
        #expect((try? await unheard.value) == nil)
        let (aliceOnC, first) = try await cluster.connect("alice", on: "c")
        #expect(first.activeCalls.isEmpty)
        // Nor is alice kept busy by it until its claim's 30 s lease lapses: node a, restarted,
        // releases the claims its Core does not engage.
        cluster.nodes["a"] = try GatewayProcess.clusterNode(
            "a", redis: cluster.redis, database: cluster.database, secret: RoutingCluster.secret,
            ["--admin-key", RoutingCluster.adminKey])
        var again: Call?
        _ = try await eventually(within: 15) {
            again = try? await aliceOnC.initiateCall(to: "dave", timeout: 60)
            return again != nil
        }
        let callToDave = try #require(again, "alice could start a call within 15 s of her node's restart")
        _ = try await aliceOnC.rejectCall(callToDave.sessionId, status: .cancelled)

        // A ring bob heard is in the store the moment he heard it: its owner killed at once,
        // a survivor takes it over and bob answers it.
        let carol = try await cluster.device("carol", on: "c")
        let call = try await carol.ring("bob", ringing: [bob], timeout: 60)
        try #require(cluster.nodes["c"]).kill()
        _ = try await owner(of: call.sessionId, after: "c", in: cluster)
        var accepted: Call?
        _ = try await eventually(within: 10) {
            accepted = try? await bob.acceptCall(call.sessionId)
            return accepted != nil
        }
        #expect(accepted?.callStatus == .ongoing)
        let rows = try await databaseRows(cluster.database, "SELECT session_id FROM calls WHERE receiver_id = 'bob'")
        #expect(rows == [call.sessionId], "one call to bob in the log: the one he heard")
    }

    @Test func anAnsweredCallWhoseOwnerWasKilledGoesOnAndEndsOnce() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        try await durable(call.sessionId, as: "ongoing", in: cluster)
        try #require(cluster.nodes["a"]).kill()
        let (aliceOnC, reconnected) = try await cluster.connect("alice", on: "c")
        #expect(reconnected.activeCalls.map(\.sessionId) == [call.sessionId])
        _ = try await owner(of: call.sessionId, after: "a", in: cluster)
        // A device connecting after the takeover is told of the call by its new owner.
        let (_, later) = try await cluster.connect("bob", on: "c")
        #expect(later.activeCalls.map(\.sessionId) == [call.sessionId])
        #expect(later.activeCalls.first?.callStatus == .ongoing)

        let ended = try await bob.endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        guard case .callEndedMessageReceived(_, let by, .hungUp) = try await aliceOnC.expectPush() else {
            Issue.record("alice expected bob's hang-up on her new device")
            return
        }
        #expect(by?.uid == "bob")
        let rows = try await databaseRows(cluster.database, "SELECT status FROM calls WHERE session_id = '\(call.sessionId)'")
        #expect(rows == ["ended"])
        await expectError(.callEnded) { try await aliceOnC.endCall(call.sessionId) }
    }

    @Test func anOwnerFrozenPastItsLeaseLetsGoOfTheCallsASurvivorTookOver() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 8)
        try await durable(call.sessionId, as: "initiated", in: cluster)

        let frozen = try #require(cluster.nodes["a"])
        try await frozen.freeze()
        let owner = try await owner(of: call.sessionId, after: "a", in: cluster)
        frozen.thaw()
        #expect(owner == "b|1")

        // Node b times the ring out; node a, back, runs the call no more: bob is told once.
        let stopped = try await bob.expectPush(within: .seconds(12))
        guard case .incomingCallCanceled(let ended, .unanswered) = stopped else {
            Issue.record("bob expected the ring to time out, got \(stopped)")
            return
        }
        #expect(ended.sessionId == call.sessionId)
        await bob.expectSilence(for: .seconds(2))
        let rows = try await databaseRows(
            cluster.database, "SELECT status, owner_node FROM calls WHERE session_id = '\(call.sessionId)'")
        #expect(rows == ["unanswered|b"])
        #expect(try await eventually(within: 5) { try await cluster.isReady("a") }, "node a is live again")
    }
}

/// What a node held back for the store while it was frozen is not published once it runs again
/// if a survivor took the call over meanwhile: the new owner speaks for the call from then on.
@Suite(.serialized) struct ClusterHeldOutputTests {
    /// Alice's ring to bob (who has no device, so a wake-up push is asked for and alice hears
    /// "waking bob") commits on node a only after a is frozen: the commit sleeps in a deferred
    /// trigger, and its answer reaches node a when it runs again. Node b takes the call over
    /// and bob declines it there. Back, node a must not publish the ring and the progress it
    /// held for that commit: bob would ring for a call he declined, and alice's devices would
    /// hear the call ringing after they heard it rejected.
    @Test func pushesHeldForACommitAcrossAFreezeAreDroppedWhenASurvivorTookTheCallOver() async throws {
        let cluster = try await RoutingCluster(["a", "b"], [
            "--webhook-allow-private-networks", "--webhook-url", "http://127.0.0.1:9/hooks",
            "--webhook-secret", "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
        ])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let aliceOnB = try await cluster.device("alice", on: "b")
        _ = try await databaseRows(cluster.database, """
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON calls DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW WHEN (NEW.initiator_uid = 'alice') EXECUTE FUNCTION slow_commit();
            """)
        let unanswered = Task { try await alice.initiateCall(to: "bob", timeout: 60) }
        #expect(try await eventually(within: 5) {
            try await databaseRows(cluster.database, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == ["1"]
        }, "node a's commit of the call sleeps in the trigger")
        let frozen = try #require(cluster.nodes["a"])
        try await frozen.freeze()
        defer { frozen.thaw() }

        var owner: [String] = []
        let takenOver = try await eventually(within: 15) {
            owner = try await databaseRows(cluster.database, "SELECT session_id, owner_node FROM calls WHERE initiator_uid = 'alice'")
            return owner.first?.hasSuffix("|b") == true
        }
        try #require(takenOver, "node b took the call over: \(owner)")
        let sessionId = try #require(owner.first?.split(separator: "|").first.map(String.init))
        let bob = try await cluster.device("bob", on: "b")
        // Node b writes itself as the call's owner in Redis right after its takeover committed.
        #expect(try await eventually(within: 10) {
            (try? await bob.rejectCall(sessionId, status: .rejected)) != nil
        })
        // Alice's device on b hears the rejection, after what node b said of the call before it.
        while true {
            if case .outgoingCallRejected(let call, _) = try await aliceOnB.expectPush(), call.sessionId == sessionId {
                break
            }
        }

        frozen.thaw()
        _ = await unanswered.result
        await aliceOnB.expectSilence(for: .seconds(3))
        await bob.expectSilence(for: .milliseconds(500))
        #expect(try await eventually(within: 5) { try await cluster.isReady("a") }, "node a is live again")
    }
}
