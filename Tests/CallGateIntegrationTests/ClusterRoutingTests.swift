import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// Calls whose people sit on different nodes of a cluster: pushes reach every device of a user
/// on whichever node it is, ops reach the node that owns the call and their replies come back,
/// a new meeting joined on two nodes at once gets one owner, and an op whose owner is gone gets
/// `ERR_CALL_OWNER_UNREACHABLE` instead of hanging.
@Suite(.serialized) struct ClusterRoutingTests {
    @Test func aCallerOnOneNodeRingsDevicesOnTwoOthersAndTheAcceptOnOneStopsTheOther() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bobOnB = try await cluster.device("bob", on: "b")
        let bobOnC = try await cluster.device("bob", on: "c")

        let call = try await alice.ring("bob", ringing: [bobOnB, bobOnC])
        #expect(call.receiver == .user(User(uid: "bob", name: "bob name")), "named as bob's token on node b says")
        let accepted = try await bobOnC.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing && accepted.sessionId == call.sessionId)
        let heard = try await alice.expectPush()
        guard case .outgoingCallAccepted(let acceptedCall, let by) = heard else {
            Issue.record("alice expected the accept, got \(heard)")
            return
        }
        #expect(acceptedCall == accepted && by.uid == "bob" && by.name == "bob name")
        #expect(try await bobOnB.expectPush() == .incomingCallCanceled(call: accepted, reason: .answeredElsewhere))
        await bobOnC.expectSilence()

        let ended = try await bobOnC.endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        let hungUp = try await alice.expectPush()
        guard case .callEndedMessageReceived(let endedCall, let endedBy, .hungUp) = hungUp else {
            Issue.record("alice expected the hang-up, got \(hungUp)")
            return
        }
        #expect(endedCall == ended && endedBy?.uid == "bob")
        let rows = try await databaseRows(
            cluster.database, "SELECT status, owner_node FROM calls WHERE session_id = '\(call.sessionId)'")
        #expect(rows == ["ended|a"], "one call, ended, owned by the node it was made on")

        // Later ops on the call from other nodes are answered by its owner, which remembers it.
        await expectError(.callEnded) { try await bobOnB.acceptCall(call.sessionId) }
        // An op on a call that no node owns is answered where it lands.
        await expectError(.callNotFound) { try await bobOnB.endCall("v1.0123456789abcdef0123456789abcdef") }
    }

    @Test func aDeviceConnectingToAnyNodeIsToldOfTheCallsOfEveryNode() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let ringing = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let carol = try await cluster.device("carol", on: "c")
        let toCarol = try await carol.initiateCall(to: "bob", timeout: 60)
        _ = try await bob.expectPush()

        // A second device of bob, on node c, is told of both calls (started in the same second,
        // so in either order).
        let (_, rung) = try await cluster.connect("bob", on: "c")
        #expect(Set(rung.activeCalls.map(\.sessionId)) == [ringing.sessionId, toCarol.sessionId])
        #expect(rung.activeCalls.count == 2)
        // Alice's device on node b is told of the call she makes from node a.
        let (_, caller) = try await cluster.connect("alice", on: "b")
        #expect(caller.activeCalls == [ringing])

        let accepted = try await bob.acceptCall(ringing.sessionId)
        _ = try await carol.rejectCall(toCarol.sessionId, status: .cancelled)
        let (_, engaged) = try await cluster.connect("bob", on: "a")
        #expect(engaged.activeCalls == [accepted])
        _ = try await bob.endCall(ringing.sessionId)
        let (_, after) = try await cluster.connect("bob", on: "c")
        #expect(after.activeCalls.isEmpty)
    }

    @Test func aCallerWhoseDeviceOnTheOwnerLeftIsStillPresentThroughHerDevicesElsewhere() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let aliceOnB = try await cluster.device("alice", on: "b")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        await alice.close()
        // A device that reconnects on node c is told of the call, and node a of the device.
        let (aliceOnC, reconnected) = try await cluster.connect("alice", on: "c")
        #expect(reconnected.activeCalls == [call])
        await aliceOnC.close()

        // The caller's grace period (10 s) passes: her device on node b keeps the call ringing.
        try await Task.sleep(for: .seconds(11))
        await bob.expectSilence()
        let accepted = try await bob.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        guard case .outgoingCallAccepted = try await aliceOnB.expectPush() else {
            Issue.record("alice's device on node b expected the accept")
            return
        }
    }

    @Test func aNodeThatOnlyHeldDevicesDiesAndTheCallGoesOnWhereTheyReconnect() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.establishCall(with: bob, uid: "bob")

        try #require(cluster.nodes["b"]).kill()
        let (bobOnC, reconnected) = try await cluster.connect("bob", on: "c")
        #expect(reconnected.activeCalls.map(\.sessionId) == [call.sessionId])
        // Node b's lease lapses (3 s) and node a forgets bob's device there; bob is still present.
        try await Task.sleep(for: .seconds(5))
        await alice.expectSilence()
        let ended = try await bobOnC.endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        guard case .callEndedMessageReceived(_, let by, .hungUp) = try await alice.expectPush() else {
            Issue.record("alice expected bob's hang-up")
            return
        }
        #expect(by?.uid == "bob")
    }

    @Test func aCallerBusyOnOneNodeCannotCallFromAnotherAndAnsweredCallsMakeCalleesBusyEverywhere() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let aliceOnC = try await cluster.device("alice", on: "c")
        let bob = try await cluster.device("bob", on: "b")
        let carol = try await cluster.device("carol", on: "c")

        // Alice rings bob from node a: her other device, on node c, cannot start a second call.
        let call = try await alice.ring("bob", ringing: [bob])
        await expectError(.callInProgress) { try await aliceOnC.initiateCall(to: "carol") }
        await carol.expectSilence()

        // Bob answers: carol's call from node c finds him busy in node a's call.
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        let busy = try await carol.initiateCall(to: "bob")
        #expect(busy.callStatus == .busy)
        await bob.expectSilence()

        // Once the call ended, nobody is held: both may call again, from any node.
        _ = try await alice.endCall(call.sessionId)
        _ = try await bob.expectPush()
        let again = try await carol.ring("bob", ringing: [bob])
        _ = try await aliceOnC.initiateCall(to: "dave")
        _ = try await bob.acceptCall(again.sessionId)
    }

    @Test func aUserRungByCallsOfTwoNodesAcceptsOnlyOne() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"], ["--no-auto-busy"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let carol = try await cluster.device("carol", on: "c")
        let bobOnB = try await cluster.device("bob", on: "b")
        let bobOnC = try await cluster.device("bob", on: "c")
        for _ in 0..<5 {
            let fromAlice = try await alice.ring("bob", ringing: [bobOnB, bobOnC])
            let fromCarol = try await carol.ring("bob", ringing: [bobOnB, bobOnC])
            async let first = bobOnB.send(.acceptCall(SessionParams(sessionId: fromAlice.sessionId)))
            async let second = bobOnC.send(.acceptCall(SessionParams(sessionId: fromCarol.sessionId)))
            let outcomes = await [try first, try second]
            let accepted = outcomes.filter { if case .success = $0 { true } else { false } }
            let refused = outcomes.compactMap { outcome -> ErrorCode? in
                if case .failure(let error) = outcome { error.code } else { nil }
            }
            #expect(accepted.count == 1 && refused == [.callInProgress], "bob is in one call: \(outcomes)")
            for call in [fromAlice, fromCarol] {
                _ = try? await alice.rejectCall(call.sessionId, status: .cancelled)
                _ = try? await carol.rejectCall(call.sessionId, status: .cancelled)
                _ = try? await alice.endCall(call.sessionId)
                _ = try? await carol.endCall(call.sessionId)
            }
            for device in [alice, carol, bobOnB, bobOnC] {
                while await device.nextEvent(timeout: .milliseconds(300)) != nil {}
            }
        }
    }

    @Test func aGroupChangedOnOneNodeRingsItsMembersOnThreeNodes() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let carol = try await cluster.device("carol", on: "c")
        let dave = try await cluster.device("dave", on: "c")
        // The group is made on node b; node a, where alice rings it, learns it over the bus.
        #expect(try await cluster.putGroup("team", members: ["alice", "bob", "carol"], on: "b") == 200)
        try await Task.sleep(for: .milliseconds(500))
        let call = try await alice.initiateCall(to: "team", receiverType: .group)
        for device in [bob, carol] {
            #expect(try await device.expectPush() == .incomingCallReceived(call: call))
        }
        _ = try await bob.acceptCall(call.sessionId)
        let joined = try await carol.acceptCall(call.sessionId)
        #expect(joined.callStatus == .ongoing)
        var accepters: [String] = []
        for _ in 0..<2 {
            if case .outgoingCallAccepted(_, let by) = try await alice.expectPush() {
                accepters.append(by.uid)
            }
        }
        #expect(accepters == ["bob", "carol"])
        await dave.expectSilence()

        // A member removed on node c no longer rings when node a starts the next call.
        _ = try await alice.endCall(call.sessionId)
        let ended = try await bob.endCall(call.sessionId)
        #expect(ended.callStatus == .ended, "with bob gone carol is alone: the call ends")
        #expect(try await cluster.putGroup("team", members: ["alice", "bob", "dave"], on: "c") == 200)
        try await Task.sleep(for: .milliseconds(500))
        for device in [bob, carol, dave] {
            while await device.nextEvent(timeout: .milliseconds(300)) != nil {}
        }
        let next = try await alice.initiateCall(to: "team", receiverType: .group)
        #expect(try await dave.expectPush() == .incomingCallReceived(call: next))
        #expect(try await bob.expectPush() == .incomingCallReceived(call: next))
        await carol.expectSilence()
    }

    @Test func afterRedisRestartsEmptyEveryRouteAndClaimIsBack() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let carol = try await cluster.device("carol", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)

        // Redis comes back with nothing: no owner record, no claim, no subscription.
        cluster.redis.kill()
        try cluster.redis.start()
        // Ready is not enough: a node whose Redis went away for less than its suspension time
        // stays ready while its command connection comes back. Each has written again what it
        // keeps once it is back: node a its call's owner record and bob's active-call entry, node
        // b bob's presence.
        #expect(try await eventually(within: 10) {
            let a = try await cluster.isReady("a")
            let b = try await cluster.isReady("b")
            let owner = try cluster.redis.command("HGET", "cg:call:{c:\(call.sessionId)}", "owner")
            let presence = try cluster.redis.command("HGETALL", "cg:{u:bob}:devices")
            let ringing = try cluster.redis.command("EXISTS", "cg:{u:bob}:calls")
            return a && b && owner == "a" && !presence.isEmpty && ringing == "1"
        }, "both nodes are live again, with what they keep in Redis written again")
        // Node b lists a's calls once it counts a live again (at a's next heartbeat).
        #expect(try await eventually(within: 10) {
            let (probe, result) = try await cluster.connect("bob", on: "b")
            await probe.close()
            return !result.activeCalls.isEmpty
        }, "node b lists the call of node a to a device of bob's")

        // Redis lost every push sequence, and no node puts one back (none can vouch that no
        // device missed a push of it): the devices connect again and learn to rebuild, their
        // connect listing the call as it stands.
        var devices: [CallGateClient] = []
        for (device, uid, node) in [(alice, "alice", "a"), (bob, "bob", "b"), (carol, "carol", "b")] {
            let (back, result) = try await cluster.connect(uid, on: node, recovering: try #require(device.recoveryPoint))
            #expect(result.recovery?.recovered == false, "\(uid) recovers nothing of a sequence Redis lost")
            #expect(result.activeCalls.map(\.sessionId) == (uid == "carol" ? [] : [call.sessionId]), "\(uid)")
            devices.append(back)
        }
        let (aliceBack, bobBack, carolBack) = (devices[0], devices[1], devices[2])

        // The owner wrote its call again: bob's accept on node b reaches it, alice hears it.
        let accepted = try await bobBack.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        guard case .outgoingCallAccepted = try await aliceBack.expectPush() else {
            Issue.record("alice expected the accept")
            return
        }
        // Its claims are back: alice and bob are busy for carol on node b.
        #expect(try await carolBack.initiateCall(to: "alice").callStatus == .busy)
        guard case .outgoingCallRejected = try await carolBack.expectPush() else {
            Issue.record("carol expected her busy call's rejection")
            return
        }
        // Group changes travel again.
        #expect(try await cluster.putGroup("pair", members: ["carol", "alice"], on: "b") == 200)
        _ = try await aliceBack.endCall(call.sessionId)
        _ = try await bobBack.expectPush()
        try await Task.sleep(for: .milliseconds(500))
        let ring = try await aliceBack.initiateCall(to: "pair", receiverType: .group)
        #expect(try await carolBack.expectPush() == .incomingCallReceived(call: ring))
    }

    @Test func aSessionJoinedFromTwoNodesCarriesMuteAndRecording() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.establishCall(with: bob, uid: "bob")

        let aliceToken = try await alice.generateToken(sessionId: call.sessionId)
        _ = try await alice.joinSession(callToken: aliceToken.callToken)
        let bobToken = try await bob.generateToken(sessionId: call.sessionId)
        let joined = try await bob.joinSession(callToken: bobToken.callToken)
        #expect(Set(joined.participants.map(\.uid)) == ["alice", "bob"])
        #expect(try await alice.expectPush() == .userJoined(sessionId: call.sessionId, user: User(uid: "bob", name: "bob name")))
        guard case .userListChanged(_, let participants) = try await alice.expectPush() else {
            Issue.record("alice expected the new participant list")
            return
        }
        #expect(participants.count == 2)

        _ = try await bob.setMuted(call.sessionId, audio: true)
        #expect(try await alice.expectPush() == .userMuted(
            sessionId: call.sessionId, user: User(uid: "bob", name: "bob name"), audioMuted: true, videoMuted: false))
        _ = try await alice.startRecording(call.sessionId)
        #expect(try await bob.expectPush() == .recordingToggled(
            sessionId: call.sessionId, recordingStarted: true, user: User(uid: "alice", name: "alice name")))

        // Session events and host controls from nodes that do not own the call.
        let aliceElsewhere = try await cluster.device("alice", on: "c")
        let elsewhereToken = try await aliceElsewhere.generateToken(sessionId: call.sessionId)
        _ = try await aliceElsewhere.joinSession(callToken: elsewhereToken.callToken)
        let sent = try await bob.sendSessionEvent(call.sessionId, type: "raiseHand", data: .object(["raised": .bool(true)]))
        #expect(sent.participants == 2)
        let raised = Push.sessionEvent(
            sessionId: call.sessionId, type: "raiseHand", data: .object(["raised": .bool(true)]),
            user: User(uid: "bob", name: "bob name"))
        #expect(try await alice.expectPush() == raised)
        #expect(try await aliceElsewhere.expectPush() == raised)
        _ = try await bob.holdCall(call.sessionId)
        let bobHeld = Push.callHeld(sessionId: call.sessionId, user: User(uid: "bob", name: "bob name"))
        #expect(try await alice.expectPush() == bobHeld)
        #expect(try await aliceElsewhere.expectPush() == bobHeld)
        await expectError(.notHost) { try await bob.removeParticipant(call.sessionId, uid: "alice") }
        _ = try await aliceElsewhere.removeParticipant(call.sessionId, uid: "bob")
        #expect(try await bob.expectPush() == .removedFromCall(
            sessionId: call.sessionId, by: User(uid: "alice", name: "alice name")))
        await expectError(.callEnded) { try await bob.joinSession(callToken: bobToken.callToken) }
    }

    /// bob, on a node that does not own alice's call, invites carol, on a third node: she rings
    /// there, answers, and the owner's call goes on with three.
    @Test func anInviteFromANodeThatDoesNotOwnTheCallRingsAUserOnAnother() async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let carol = try await cluster.device("carol", on: "c")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        let invited = try await bob.inviteToCall(call.sessionId, receiverIds: ["carol"])
        #expect(invited.rung == ["carol"])
        #expect(try await carol.expectPush() == .incomingCallReceived(
            call: invited.call, invitedBy: User(uid: "bob", name: "bob name")))
        let answered = try await carol.acceptCall(call.sessionId)
        #expect(answered.callStatus == .ongoing)
        _ = try await alice.expectPush()
        #expect(try await alice.endCall(call.sessionId).callStatus == .ongoing)
        #expect(try await bob.endCall(call.sessionId).callStatus == .ended)
        guard case .callEndedMessageReceived(let ended, _, _) = try await carol.expectPush() else {
            Issue.record("carol should hear that the call ended")
            return
        }
        #expect(ended.callStatus == .ended)
    }

    @Test func aMeetingJoinedOnTwoNodesAtOnceHasOneOwner() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let carol = try await cluster.device("carol", on: "a")
        let dave = try await cluster.device("dave", on: "b")
        for round in 0..<5 {
            let room = "room-\(round)"
            let carolGrant = try await cluster.tokens.mintCallToken(uid: "carol", sessionId: room)
            let daveGrant = try await cluster.tokens.mintCallToken(uid: "dave", sessionId: room)
            async let carolJoined = carol.joinSession(callToken: carolGrant.token)
            async let daveJoined = dave.joinSession(callToken: daveGrant.token)
            let (first, second) = try await (carolJoined, daveJoined)
            let participants = [first, second].map { Set($0.participants.map(\.uid)) }
            #expect(participants.contains(["carol", "dave"]), "both joined the one meeting \(room): \(participants)")
            _ = try await carol.leaveSession(room)
            _ = try await dave.leaveSession(room)
            while await carol.nextEvent(timeout: .milliseconds(200)) != nil {}
            while await dave.nextEvent(timeout: .milliseconds(200)) != nil {}
        }
    }

    @Test func anOpWhoseOwnerIsGoneOrSilentGetsOwnerUnreachable() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--cluster-forward-timeout", "300"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let first = try await alice.ring("bob", ringing: [bob], timeout: 60)

        // A stopped owner hears the op but cannot answer: the forward times out.
        let owner = try #require(cluster.nodes["a"])
        try await owner.freeze()
        let started = ContinuousClock.now
        await expectError(.callOwnerUnreachable) { try await bob.acceptCall(first.sessionId) }
        #expect(ContinuousClock.now - started < .seconds(3), "answered after the 300 ms forward timeout")
        owner.thaw()

        // A dead owner is not listening: the op is refused at once.
        owner.kill()
        await expectError(.callOwnerUnreachable) { try await bob.rejectCall(first.sessionId, status: .rejected) }
        let port = try #require(cluster.nodes["b"]).port
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let metrics = MetricsScrape(String(decoding: body, as: UTF8.self))
        #expect(metrics["callgate_cluster_unanswered_forwards_total"] == 2)
        #expect(metrics["callgate_cluster_forwarded_ops_total"] == 2)
    }
}

/// Nodes on one throwaway Redis and one fresh database, and devices connected to them.
final class RoutingCluster {
    let redis: ThrowawayRedis
    let database: String
    var nodes: [String: GatewayProcess] = [:]
    let tokens: TokenService
    let loop: ClientLoop
    /// What every node signs tokens with.
    static let secret = "cluster-routing-secret"
    /// The admin key of every node.
    static let adminKey = "cluster-routing-admin"

    /// Nodes `ids` with `extra` flags, on `redis` (default: a new one) and `database` (default:
    /// a fresh database of the shared test server).
    /// `redisURLs` are what each node connects with (default: `redis`'s URL).
    init(
        _ ids: [String], _ extra: [String] = [], redis: ThrowawayRedis? = nil, redisURLs: [String: String] = [:],
        database: String? = nil
    ) async throws {
        let redis = try redis ?? ThrowawayRedis()
        self.redis = redis
        if let database {
            self.database = database
        } else {
            self.database = try await SharedPostgres.freshDatabase()
        }
        tokens = try await TokenService(secret: Self.secret)
        loop = try ClientLoop()
        for id in ids {
            nodes[id] = try GatewayProcess.clusterNode(
                id, redis: redis, redisURL: redisURLs[id], database: self.database, secret: Self.secret,
                ["--admin-key", Self.adminKey] + extra)
        }
    }

    /// A device of `uid` connected to node `node`.
    func device(_ uid: String, on node: String) async throws -> CallGateClient {
        try await connect(uid, on: node).0
    }

    /// A device of `uid` connected to node `node`, recovering from `recover` if given, and what
    /// `connect` answered.
    func connect(
        _ uid: String, on node: String, recovering recover: RecoverParams? = nil
    ) async throws -> (CallGateClient, ConnectResult) {
        let port = try #require(nodes[node]).port
        let client = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: loop)
        let token = try await tokens.mint(user: User(uid: uid, name: "\(uid) name"), ttl: 600).token
        let result = try await client.connect(token: token, recover: recover)
        return (client, result)
    }

    /// Whether node `node` answers `/readyz` with 200.
    func isReady(_ node: String) async throws -> Bool {
        let port = try #require(nodes[node]).port
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!)
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    /// `PUT /v1/groups/<guid>` on node `node`: the status.
    func putGroup(_ guid: String, members: [String], on node: String) async throws -> Int {
        let names = members.map { "\"\($0)\"" }.joined(separator: ",")
        return try await admin("PUT", "/v1/groups/\(guid)", json: #"{"name":"\#(guid)","members":[\#(names)]}"#, on: node).0
    }

    /// An admin API request to node `node`: the status and the body.
    func admin(_ method: String, _ path: String, json: String? = nil, on node: String) async throws -> (Int, Data) {
        try await adminRequest(port: try #require(nodes[node]).port, method, path, json: json, key: Self.adminKey)
    }

    func stop() {
        for node in nodes.values {
            node.kill()
        }
        loop.stop()
        redis.stop()
    }
}
