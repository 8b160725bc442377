import CallGateCluster
import Foundation
import LWS
import Logging
import TestSupport
import Testing

/// `NodeIDClaim` and `ClusterMembership` on a real Redis, with short leases: one run per node
/// id, suspension when Redis stops answering, and the view of live and lapsed nodes.
@Suite(.serialized) struct ClusterMembershipTests {
    final class Node: @unchecked Sendable {
        let loop: LoopHarness
        let states = Events<String>()
        var node: ClusterNode?

        init(_ id: String, redis url: String) async throws {
            loop = try LoopHarness()
            let endpoint = try RedisEndpoint(parsing: url)
            var timing = ClusterMembership.Timing()
            timing.heartbeatInterval = .milliseconds(100)
            timing.lease = .milliseconds(600)
            timing.suspendAfter = .milliseconds(300)
            let incarnation = ClusterMembership.newIncarnation()
            let number = try await offPool {
                try NodeIDClaim.claim(id, incarnation: incarnation, redis: endpoint, hold: .milliseconds(600), wait: .seconds(2))
            }
            await loop.onLoop { [self, timing] in
                let node = ClusterNode(
                    nodeID: id, incarnation: incarnation, number: number, redis: endpoint,
                    signature: BusSignatureTests.testSignature, context: loop.context,
                    timing: timing, historyWindow: .seconds(120), historyPerUser: 256, logger: Logger(label: "test"))
                node.membership.onLive = { [states] in states.append("live") }
                node.membership.onSuspended = { [states] in states.append("suspended: \($0)") }
                node.start()
                self.node = node
            }
        }

        func view() async -> (live: [String], lapsed: [String]) {
            await loop.onLoop { [self] in (node?.membership.liveNodes ?? [], node?.membership.lapsedNodes ?? []) }
        }

        /// Whether the node's view of the cluster satisfies `condition` within `seconds`.
        func view(within seconds: Double, _ condition: ((live: [String], lapsed: [String])) -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                if condition(await view()) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition(await view())
        }

        func leave() async {
            await withCheckedContinuation { continuation in
                loop.context.post { [self] in node?.membership.leave { continuation.resume() } }
            }
        }
    }

    @Test func anIDIsClaimedByOneRunAtATime() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let endpoint = try RedisEndpoint(parsing: redis.url)
        let first = try await Node("a", redis: redis.url)
        #expect(await first.states.wait { $0 == "live" } != nil)
        let started = ContinuousClock.now
        await #expect {
            try await offPool {
                try NodeIDClaim.claim("a", incarnation: "twin", redis: endpoint, hold: .seconds(1), wait: .milliseconds(500))
            }
        } throws: { error in
            "\(error)".contains("node id a is held by a live process")
        }
        #expect(ContinuousClock.now - started < .seconds(3))

        await first.loop.stop()
        let number = try await offPool {
            try NodeIDClaim.claim("a", incarnation: "next", redis: endpoint, hold: .seconds(1), wait: .seconds(3))
        }
        #expect(number > 0, "the id is free once the first run's lease lapsed")
        #expect(try redis.command("GET", "cg:{cluster}:node:a") == "next|\(number)")
        NodeIDClaim.release("a", incarnation: "next", number: number, redis: endpoint)
        #expect(try redis.command("EXISTS", "cg:{cluster}:node:a") == "0")
    }

    @Test func aNodeWhoseIDWasTakenOverIsSuspended() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let node = try await Node("a", redis: redis.url)
        #expect(await node.states.wait { $0 == "live" } != nil)
        try redis.command("SET", "cg:{cluster}:node:a", "other|99", "PX", "5000")
        let suspended = await node.states.wait(seconds: 2) { $0.hasPrefix("suspended") }
        #expect(suspended?.contains("held by another live process") == true, "\(String(describing: suspended))")
        await node.loop.stop()
    }

    @Test func nodesSeeEachOtherAndTheLeasesThatLapsed() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let a = try await Node("a", redis: redis.url)
        let b = try await Node("b", redis: redis.url)
        let c = try await Node("c", redis: redis.url)
        for node in [a, b, c] {
            #expect(await node.states.wait { $0 == "live" } != nil)
        }
        #expect(await a.view(within: 5) { $0.live == ["a", "b", "c"] })

        await b.loop.stop()
        #expect(await a.view(within: 5) { $0.live == ["a", "c"] && $0.lapsed == ["b"] }, "b's lease lapsed")

        await c.leave()
        #expect(
            await a.view(within: 2) { $0.live == ["a"] && $0.lapsed == ["b", "c"] },
            "a node that left is lapsed at once, for a survivor to take over its calls")
        await c.loop.stop()
        await a.loop.stop()
    }

    @Test func aNodeSuspendsItselfWhenRedisStopsAnsweringAndComesBackLive() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let node = try await Node("a", redis: redis.url)
        #expect(await node.states.wait { $0 == "live" } != nil)
        node.states.clear()
        redis.kill()
        let suspended = await node.states.wait(seconds: 2) { $0.hasPrefix("suspended") }
        #expect(suspended?.contains("no heartbeat acknowledged") == true, "\(String(describing: suspended))")
        try redis.start()
        #expect(await node.states.wait(seconds: 5) { $0 == "live" } != nil)
        await node.loop.stop()
    }
}
