import CallGateCluster
import TestSupport
import Testing

/// `PushStream` against a real redis-server: pushes numbered from 1 in one epoch, read back
/// after a position only when every one of them is still kept, and a sequence Redis lost begun
/// again in a new epoch.
@Suite(.serialized) struct PushStreamTests {
    /// A stream keeping `perUser` pushes per user, over a fixture's client.
    final class Streams: @unchecked Sendable {
        let fixture: RedisClientTests.Fixture
        var stream: PushStream?

        init(_ fixture: RedisClientTests.Fixture, perUser: Int) async {
            self.fixture = fixture
            await fixture.loop.onLoop { [self] in
                stream = fixture.client.map { PushStream(
                    client: $0, signature: BusSignatureTests.testSignature, window: .seconds(60), maxEntriesPerUser: perUser) }
            }
        }

        func append(_ head: String, to uid: String) async -> Result<UInt64, RedisFailure>? {
            await withCheckedContinuation { continuation in
                fixture.loop.context.post { [self] in
                    let parts = ClusterMessage.pushParts(
                        origin: "a", excluding: 7, event: "onIncomingCallReceived", sessionId: "s", head: Array(head.utf8))
                    guard let stream else { return continuation.resume(returning: nil) }
                    stream.append(parts, toUser: uid) { continuation.resume(returning: $0) }
                }
            }
        }

        /// Where the sequences of `uids` stand, as Redis has them.
        func sequences(of uids: [String]) async throws -> [String: (epoch: String, seq: UInt64)] {
            let result: Result<[String: (epoch: String, seq: UInt64)], RedisFailure>? = await withCheckedContinuation { continuation in
                fixture.loop.context.post { [self] in
                    guard let stream else { return continuation.resume(returning: nil) }
                    stream.sequences(of: uids) { continuation.resume(returning: $0) }
                }
            }
            return try #require(result).get()
        }

        func read(_ uid: String, from position: (String, UInt64)?) async throws -> PushStream.Recall {
            let result: Result<PushStream.Recall, RedisFailure>? = await withCheckedContinuation { continuation in
                fixture.loop.context.post { [self] in
                    guard let stream else { return continuation.resume(returning: nil) }
                    stream.read(uid, recovering: position) { continuation.resume(returning: $0) }
                }
            }
            return try #require(result).get()
        }
    }

    /// The heads of `messages`, which must be pushes numbered `seqs`.
    func heads(_ messages: [ClusterMessage]?, numbered seqs: [UInt64]) -> [String]? {
        messages?.map { message in
            guard case .push("a", 7, "onIncomingCallReceived", "s", _, let seq, let head) = message, seqs.contains(seq) else {
                return "unexpected \(message)"
            }
            return String(decoding: head, as: UTF8.self)
        }
    }

    @Test func pushesAreNumberedKeptAndGivenBackAfterAPosition() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await RedisClientTests.withClient(redis.url) { fixture in
            #expect(await fixture.waitReady())
            let streams = await Streams(fixture, perUser: 3)
            let fresh = try await streams.read("bob", from: nil)
            #expect(fresh.seq == 0 && fresh.missed == nil)
            for (index, head) in ["one", "two", "three", "four"].enumerated() {
                #expect(await streams.append(head, to: "bob") == .success(UInt64(index + 1)))
            }
            let epoch = fresh.epoch
            let now = try await streams.read("bob", from: (epoch, 1))
            #expect(now.epoch == epoch && now.seq == 4)
            #expect(heads(now.missed, numbered: [2, 3, 4]) == ["two", "three", "four"])
            #expect(try await streams.read("bob", from: (epoch, 4)).missed?.isEmpty == true, "nothing missed")
            #expect(try await streams.read("bob", from: (epoch, 0)).missed == nil, "push 1 is no longer kept (3 per user)")
            #expect(try await streams.read("bob", from: (epoch, 5)).missed == nil, "a seq ahead of the sequence")
            #expect(try await streams.read("bob", from: ("other", 1)).missed == nil, "another epoch")
            #expect(try await streams.read("bob", from: (epoch, 9_007_199_254_740_991)).missed == nil)
            #expect(try await streams.read("ann", from: nil).epoch != epoch, "each user has a sequence of their own")

            // Redis lost the sequence (restarted empty, or it lapsed): a new epoch, from 1.
            _ = try redis.command("DEL", "cg:{u:bob}:seq")
            let again = try await streams.read("bob", from: (epoch, 4))
            #expect(again.epoch != epoch && again.seq == 0 && again.missed == nil)
            #expect(await streams.append("five", to: "bob") == .success(1))
            #expect(heads(try await streams.read("bob", from: (again.epoch, 0)).missed, numbered: [1]) == ["five"])
        }
    }

    @Test func sequencesAreReadAndRenewedAndALostOneIsNotBegun() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await RedisClientTests.withClient(redis.url) { fixture in
            #expect(await fixture.waitReady())
            let streams = await Streams(fixture, perUser: 8)
            for _ in 0..<3 {
                _ = await streams.append("x", to: "bob")
            }
            _ = await streams.append("x", to: "carol")
            let epoch = try await streams.read("bob", from: nil).epoch
            _ = try redis.command("PEXPIRE", "cg:{u:bob}:seq", "5000")
            let found = try await streams.sequences(of: ["bob", "carol", "dave"])
            #expect(found["bob"]?.epoch == epoch && found["bob"]?.seq == 3)
            #expect(found["carol"]?.seq == 1 && found["dave"] == nil, "a user with no sequence is left out")
            #expect(try Int(redis.command("PTTL", "cg:{u:bob}:seq")) ?? 0 > 5000, "read again for its whole lifetime")
            #expect(try redis.command("EXISTS", "cg:{u:dave}:seq") == "0", "no sequence is begun")

            // More users than one script reads.
            let many = (0..<450).map { "user\($0)" }
            for uid in many where uid.hasSuffix("7") {
                _ = await streams.append("x", to: uid)
            }
            let read = try await streams.sequences(of: many)
            #expect(read.keys.sorted() == many.filter { $0.hasSuffix("7") }.sorted())
        }
    }
}
