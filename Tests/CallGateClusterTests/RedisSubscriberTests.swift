import CallGateCluster
import Foundation
import LWS
import Logging
import TestSupport
import Testing

/// `RedisSubscriber` against a real redis-server: subscriptions survive reconnects.
@Suite(.serialized) struct RedisSubscriberTests {
    final class Fixture: @unchecked Sendable {
        enum Event: Equatable, Sendable {
            case message(String, [UInt8])
            case confirmed(String)
            case down
        }

        let loop: LoopHarness
        let events = Events<Event>()
        var subscriber: RedisSubscriber?

        init(_ url: String) async throws {
            loop = try LoopHarness()
            let endpoint = try RedisEndpoint(parsing: url)
            await loop.onLoop { [self] in
                let subscriber = RedisSubscriber(endpoint: endpoint, name: "callgate:test:sub", context: loop.context, logger: Logger(label: "test"))
                subscriber.onMessage = { [events] in events.append(.message($0, $1)) }
                subscriber.onConfirmed = { [events] in events.append(.confirmed($0)) }
                subscriber.onDown = { [events] _ in events.append(.down) }
                subscriber.start()
                self.subscriber = subscriber
            }
        }

        func subscribe(_ channel: String) async {
            await loop.onLoop { [self] in subscriber?.subscribe(channel) }
        }

        func unsubscribe(_ channel: String) async {
            await loop.onLoop { [self] in subscriber?.unsubscribe(channel) }
        }
    }

    /// Runs `body` with a subscriber to `url`, and stops its loop however `body` ends.
    private func withSubscriber(_ url: String, _ body: (Fixture) async throws -> Void) async throws {
        let fixture = try await Fixture(url)
        try await fixture.loop.stopping { try await body(fixture) }
    }

    @Test func deliversWhatIsPublishedOnItsChannelsOnly() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await withSubscriber(redis.url) { fixture in
            await fixture.subscribe("cg:u:alice")
            await fixture.subscribe("cg:u:bob")
            #expect(await fixture.events.wait { $0 == .confirmed("cg:u:alice") } != nil)
            #expect(await fixture.events.wait { $0 == .confirmed("cg:u:bob") } != nil)
            #expect(try redis.command("PUBLISH", "cg:u:alice", "ring") == "1")
            #expect(try redis.command("PUBLISH", "cg:u:carol", "not ours") == "0")
            #expect(await fixture.events.wait { $0 == .message("cg:u:alice", Array("ring".utf8)) } != nil)

            await fixture.unsubscribe("cg:u:alice")
            try await Task.sleep(for: .milliseconds(100))
            #expect(try redis.command("PUBLISH", "cg:u:alice", "late") == "0")
            #expect(try redis.command("PUBLISH", "cg:u:bob", "still") == "1")
            #expect(await fixture.events.wait { $0 == .message("cg:u:bob", Array("still".utf8)) } != nil)
            #expect(!fixture.events.all.contains(.message("cg:u:alice", Array("late".utf8))))
        }
    }

    @Test func subscribesEverythingAgainAfterRedisRestarts() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await withSubscriber(redis.url) { fixture in
            let channels = (0..<2_500).map { "cg:u:user\($0)" }
            await fixture.loop.onLoop { [fixture] in
                for channel in channels {
                    fixture.subscriber?.subscribe(channel)
                }
            }
            #expect(await fixture.events.wait { $0 == .confirmed(channels[2_499]) } != nil)
            redis.kill()
            #expect(await fixture.events.wait { $0 == .down } != nil)
            fixture.events.clear()
            try redis.start()
            let confirmed = await fixture.events.wait(forCount: channels.count) { if case .confirmed = $0 { true } else { false } }
            #expect(confirmed == channels.count, "every channel, in batches")
            #expect(try redis.command("PUBLISH", "cg:u:user1234", "back") == "1")
            #expect(await fixture.events.wait { $0 == .message("cg:u:user1234", Array("back".utf8)) } != nil)
        }
    }

    @Test func aChannelAskedForWhileDisconnectedIsSubscribedOnConnect() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        redis.kill()
        try await withSubscriber(redis.url) { fixture in
            await fixture.subscribe("cg:n:a")
            try redis.start()
            #expect(await fixture.events.wait { $0 == .confirmed("cg:n:a") } != nil)
        }
    }
}
