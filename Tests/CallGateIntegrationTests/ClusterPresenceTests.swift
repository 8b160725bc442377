import CallGateClient
import CallGateCluster
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Presence across nodes holds under faults: a departure sent while its node's Redis link was
/// down still reaches the owner of the call; a device whose node never renews its lease lapses
/// on the owner, so its user's grace period runs; and a ring counts the callee's devices on every
/// node for `call.ringing`'s `onlineDevices`.
@Suite(.serialized) struct ClusterPresenceTests {
    /// A Redis with one user per node, so that one node's link can be cut alone.
    static func redisWithUserPerNode() throws -> (ThrowawayRedis, [String: String]) {
        let redis = try ThrowawayRedis(password: "presence-admin", users: [
            "user default off", "user node-a on >pass-a ~* &* +@all", "user node-b on >pass-b ~* &* +@all",
        ])
        return (redis, ["a": redis.url(user: "node-a", password: "pass-a"), "b": redis.url(user: "node-b", password: "pass-b")])
    }

    /// Cuts the Redis links of `user`'s node for `duration` (its connections are killed, and it
    /// cannot log in again until then), running `during` meanwhile.
    static func cut(
        _ user: String, of redis: ThrowawayRedis, for duration: Duration, during: () async throws -> Void
    ) async throws {
        try redis.command("ACL", "SETUSER", user, "off")
        try redis.command("CLIENT", "KILL", "USER", user)
        let started = ContinuousClock.now
        try await during()
        try await Task.sleep(until: started + duration)
        try redis.command("ACL", "SETUSER", user, "on")
    }

    @Test func aDepartureSentWhileItsNodesRedisLinkWasDownStillEndsTheCall() async throws {
        let (redis, urls) = try Self.redisWithUserPerNode()
        let cluster = try await RoutingCluster(["a", "b"], ["--participant-grace-seconds", "1"], redis: redis, redisURLs: urls)
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await alice.establishCall(with: bob, uid: "bob")

        // Bob's only socket closes while node b cannot reach Redis (0.4 s): its departure
        // cannot be published then. It is sent again once b is back, well before the lease
        // (4 s) would end bob's presence on a.
        let dropped = ContinuousClock.now
        try await Self.cut("node-b", of: redis, for: .milliseconds(400)) {
            _ = try await bob.dropped()
        }
        guard case .callEndedMessageReceived(let ended, _, .disconnected) = try await alice.expectPush(within: .seconds(15))
        else {
            Issue.record("alice should hear that bob left with reason disconnected")
            return
        }
        #expect(ended.sessionId == call.sessionId)
        let took = ContinuousClock.now - dropped
        #expect(took < .milliseconds(3800), "the departure, sent again, ended it, not the lease: \(took)")
        #expect(try await eventually(within: 10) { try await cluster.isReady("b") })
        let back = try await cluster.device("bob", on: "b")
        let next = try await back.initiateCall(to: "carol", timeout: 60)
        #expect(next.callStatus == .initiated, "bob is in no call any more")
    }

    @Test func aDeviceWhoseNodeNeverRenewsItsLeaseLapsesAndItsUsersGraceRuns() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--participant-grace-seconds", "1"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        _ = try await alice.establishCall(with: bob, uid: "bob")
        // Node a is told of a second device of bob on b that b never renews (as if its
        // departure had been lost), then bob's real device leaves.
        let seal = try #require(BusSignature(secret: Array(GatewayProcess.clusterSecret.utf8)))
        let phantom = ClusterMessage.present(from: "b", connection: 424_242, user: Array(#"{"uid":"bob","name":"bob name"}"#.utf8))
        try cluster.redis.command("PUBLISH", "cg:n:a", String(decoding: seal.seal(phantom.encoded, on: "cg:n:a"), as: UTF8.self))
        try await Task.sleep(for: .milliseconds(200))
        _ = try await bob.dropped()
        await alice.expectSilence(for: .seconds(2))

        guard case .callEndedMessageReceived(_, _, .disconnected) = try await alice.expectPush(within: .seconds(10)) else {
            Issue.record("alice should hear that bob left once the lease of the device he did not have lapsed")
            return
        }
        let metrics = try await cluster.scrape("a")
        #expect(metrics["callgate_cluster_leases_lapsed_total"] == 1)
        #expect(try await cluster.scrape("b")["callgate_cluster_leases_lapsed_total"] == 0, "b's devices on a are renewed")
    }

    @Test func aRingCountsTheCalleesDevicesOnEveryNode() async throws {
        let cluster = try await RoutingCluster(["a", "b"], [
            "--webhook-allow-private-networks", "--webhook-url", "http://127.0.0.1:9/hooks", "--webhook-secret", "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(),
        ])
        defer { cluster.stop() }
        // Node a counts b's devices once a heartbeat (every second) showed it b's run.
        try await Task.sleep(for: .milliseconds(1500))
        let alice = try await cluster.device("alice", on: "a")
        let bobs = [try await cluster.device("bob", on: "b"), try await cluster.device("bob", on: "b")]
        let carol = try await cluster.device("carol", on: "a")
        let carolOnB = try await cluster.device("carol", on: "b")

        let toBob = try await alice.ring("bob", ringing: bobs, timeout: 60)
        _ = try await alice.rejectCall(toBob.sessionId, status: .cancelled)
        let toCarol = try await alice.ring("carol", ringing: [carol, carolOnB], timeout: 60)
        _ = try await alice.rejectCall(toCarol.sessionId, status: .cancelled)
        for bob in bobs {
            _ = try await bob.dropped()
        }
        #expect(try await eventually(within: 5) { try cluster.redis.command("HGETALL", "cg:{u:bob}:devices").isEmpty })
        let again = try await alice.initiateCall(to: "bob", timeout: 60)

        let counts = try await onlineDevices(in: cluster.database)
        #expect(counts[toBob.sessionId] == 2, "both of bob's devices on b")
        #expect(counts[toCarol.sessionId] == 2, "carol's devices on a and on b, each once")
        #expect(counts[again.sessionId] == 0, "bob's devices left: the backend should wake his phone")
    }

    @Test func graceFlagsAreBounded() async throws {
        // A database of its own: the default one is ./callgate.sqlite, in whatever directory the
        // tests run from.
        let directory = try TemporaryDirectory()
        for flag in ["--caller-grace-seconds", "--participant-grace-seconds"] {
            let run = try await CommandRun.run([
                GatewayProcess.executable.path, "serve", "--port", "0", "--database", directory.path("x.sqlite"), flag, "3601",
            ])
            #expect(run.exitCode != 0)
            #expect(run.output.contains("\(flag) must be at most 3600, got 3601"), "\(run)")
        }
    }

    /// Session id -> `onlineDevices` of the `call.ringing` events in the webhook outbox.
    private func onlineDevices(in database: String) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await databaseRows(database, "SELECT session_id, body FROM webhook_messages WHERE type = 'call.ringing'") {
            let parts = row.split(separator: "|", maxSplits: 1)
            guard parts.count == 2, let range = parts[1].range(of: #""onlineDevices":"#) else { continue }
            let digits = parts[1][range.upperBound...].prefix { $0.isNumber }
            counts[String(parts[0])] = Int(digits)
        }
        return counts
    }
}
