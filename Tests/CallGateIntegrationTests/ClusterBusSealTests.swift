import CallGateClient
import CallGateCluster
import CallGateProtocol
import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// The bus between nodes trusts no other client of Redis: a push or a forwarded op published
/// without the cluster secret's seal, under another secret, or replayed on another channel is
/// dropped and counted by the node that hears it, and never reaches a device or the Core.
@Suite(.serialized) struct ClusterBusSealTests {
    @Test func messagesNotSealedWithTheClusterSecretAreDroppedAndCounted() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let (bob, bobConnected) = try await cluster.connect("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let accepted = try await bob.acceptCall(call.sessionId)
        guard case .outgoingCallAccepted = try await alice.expectPush() else {
            Issue.record("alice did not hear the accept")
            return
        }

        // A push to bob made up by a client of Redis: the next seq of his sequence, the frame of
        // a real push, no seal.
        let epoch = try cluster.redis.command("HGET", "cg:{u:bob}:seq", "epoch")
        let seq = try #require(UInt64(cluster.redis.command("HGET", "cg:{u:bob}:seq", "seq")))
        let ring = try cluster.redis.command("XRANGE", "cg:{u:bob}:pushes", "-", "+", "COUNT", "1")
        let head = try #require(ring.split(separator: "\n").last.map(String.init), "\(ring)")
        #expect(head.hasPrefix("{"), "the frame of the ring: \(ring)")
        let forgedPush = "P a - onIncomingCallReceived \(call.sessionId) \(epoch) \(seq + 1)\n\(head)"
        try cluster.redis.command("PUBLISH", "cg:u:bob", forgedPush)
        await bob.expectSilence(for: .milliseconds(500))

        // An op forwarded to the call's owner as if from bob's device on b (which accepted):
        // unsealed, and sealed under a secret that is not the cluster's.
        let bobJSON = #"{"uid":"bob","name":"bob name"}"#
        let endCall = #"{"id":"x","op":"endCall","data":{"sessionId":"\#(call.sessionId)"}}"#
        let forward = "F 7 b \(bobConnected.connectionId)\n\(bobJSON)\n\(endCall)"
        try cluster.redis.command("PUBLISH", "cg:n:a", forward)
        let stranger = try #require(BusSignature(secret: Array("not-the-cluster-secret-but-32-bytes-long".utf8)))
        let sealed = stranger.seal(Array(forward.utf8), on: "cg:n:a")
        try cluster.redis.command("PUBLISH", "cg:n:a", String(decoding: sealed, as: UTF8.self))
        // A message sealed with the cluster's own secret but for another channel (a push to
        // alice, replayed on bob's channel).
        let own = try #require(BusSignature(secret: Array(GatewayProcess.clusterSecret.utf8)))
        let alicePush = own.seal(push: ClusterMessage.pushParts(
            origin: "a", excluding: nil, event: "onIncomingCallReceived", sessionId: call.sessionId, head: Array(head.utf8)),
            on: "cg:u:alice")
        let replayed = alicePush.beforeSeq + Array("\(epoch) \(seq + 1)".utf8) + alicePush.afterSeq
        try cluster.redis.command("PUBLISH", "cg:u:bob", String(decoding: replayed, as: UTF8.self))
        await alice.expectSilence(for: .milliseconds(500))
        await bob.expectSilence(for: .milliseconds(200))

        // A message sealed with the cluster's secret, heard twice (a copy republished): the
        // copy is refused.
        let departure = String(decoding: own.seal(ClusterMessage.departed(connection: 999).encoded, on: "cg:n:a"), as: UTF8.self)
        try cluster.redis.command("PUBLISH", "cg:n:a", departure)
        try cluster.redis.command("PUBLISH", "cg:n:a", departure)
        let replayedKey = "callgate_cluster_bus_rejected_total{reason=\"replayed\"}"
        #expect(try await eventually(within: 5) { try await cluster.scrape("a")[replayedKey] == 1 })

        let a = try await cluster.scrape("a")
        let b = try await cluster.scrape("b")
        #expect(a["callgate_cluster_bus_rejected_total{reason=\"unsigned\"}"] == 1)
        #expect(a["callgate_cluster_bus_rejected_total{reason=\"forged\"}"] == 1)
        #expect(b["callgate_cluster_bus_rejected_total{reason=\"unsigned\"}"] == 1)
        #expect(b["callgate_cluster_bus_rejected_total{reason=\"forged\"}"] == 1)

        // The nodes' own messages still go through: the call goes on and ends as usual.
        let ended = try await bob.endCall(call.sessionId)
        #expect(ended.callStatus == .ended && accepted.callStatus == .ongoing)
        guard case .callEndedMessageReceived = try await alice.expectPush() else {
            Issue.record("alice did not hear the end")
            return
        }
    }

    @Test func nodesRotatingTheSecretHearNodesStillOnTheOldOne() async throws {
        let newSecret = "the-new-cluster-secret-of-32-bytes-or-more"
        let cluster = try await RoutingCluster(["a"])
        defer { cluster.stop() }
        cluster.nodes["b"] = try GatewayProcess.clusterNode(
            "b", redis: cluster.redis, database: cluster.database, secret: RoutingCluster.secret, clusterSecret: newSecret,
            ["--admin-key", RoutingCluster.adminKey, "--cluster-previous-secret", GatewayProcess.clusterSecret,
             "--cluster-previous-secret-until", String(Int(Date().timeIntervalSince1970) + 3600)])
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        // The accept is forwarded by the node on the new secret.
        let call = try await alice.establishCall(with: bob, uid: "bob")
        _ = try await alice.endCall(call.sessionId)
        guard case .callEndedMessageReceived = try await bob.expectPush() else {
            Issue.record("bob did not hear the end, pushed by the node on the old secret")
            return
        }
        for node in ["a", "b"] {
            let metrics = try await cluster.scrape(node)
            #expect(metrics["callgate_cluster_bus_rejected_total{reason=\"forged\"}"] == 0, "node \(node)")
        }
    }
}

/// deploy/redis/callgate.acl holds: nodes logged in as its user run a cluster (ring, a forwarded
/// accept, a recovery from the stream on another node, a group change, the end) and Redis
/// refuses them nothing.
@Suite(.serialized) struct ClusterRedisACLTests {
    @Test func aClusterRunsOnTheShippedACLAndRedisRefusesItNothing() async throws {
        let file = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/redis/callgate.acl")
        let password = UUID().uuidString
        let users = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: ">change-me-to-a-long-random-password", with: ">\(password)")
            .split(separator: "\n").map(String.init)
        #expect(users.contains { $0.hasPrefix("user default off") })
        let redis = try ThrowawayRedis(password: "acl-admin", users: users)
        let url = redis.url(user: "callgate", password: password)
        let cluster = try await RoutingCluster(["a", "b"], redis: redis, redisURLs: ["a": url, "b": url])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.ring("bob", ringing: [bob], timeout: 60)
        let point = try await bob.dropped()
        let (back, result) = try await cluster.connect("bob", on: "a", recovering: point)
        #expect(result.recovery?.recovered == true)
        _ = try await back.acceptCall(call.sessionId)
        guard case .outgoingCallAccepted = try await alice.expectPush() else {
            Issue.record("alice did not hear the accept")
            return
        }
        #expect(try await cluster.putGroup("team", members: ["alice", "bob"], on: "b") == 200)
        _ = try await alice.endCall(call.sessionId)
        guard case .callEndedMessageReceived = try await back.expectPush() else {
            Issue.record("bob did not hear the end")
            return
        }
        #expect(try redis.command("ACL", "LOG") == "", "what Redis refused the nodes")
        let flush = Result { try redis.command("--user", "callgate", "--pass", password, "FLUSHALL") }
        #expect("\(flush)".contains("NOPERM"), "the nodes' user cannot flush Redis: \(flush)")
    }
}

extension RoutingCluster {
    /// Node `node`'s metrics.
    func scrape(_ node: String) async throws -> MetricsScrape {
        let port = try #require(nodes[node]).port
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        return MetricsScrape(String(decoding: body, as: UTF8.self))
    }
}
