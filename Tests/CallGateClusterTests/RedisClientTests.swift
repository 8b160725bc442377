import CallGateCluster
import Foundation
import LWS
import Logging
import TestSupport
import Testing

/// `RedisClient` against a real redis-server of the test's own, on a real service thread.
@Suite(.serialized) struct RedisClientTests {
    /// A client on its own loop, and what its callbacks reported.
    final class Fixture: @unchecked Sendable {
        let loop: LoopHarness
        let states = Events<String>()
        var client: RedisClient?

        init(_ url: String, replyTimeout: Duration = .seconds(2)) async throws {
            loop = try LoopHarness()
            let endpoint = try RedisEndpoint(parsing: url)
            await loop.onLoop { [self] in
                let client = RedisClient(
                    endpoint: endpoint, name: "callgate:test", context: loop.context,
                    logger: Logger(label: "test"), replyTimeout: replyTimeout)
                client.onReady = { [states] in states.append("ready") }
                client.onDown = { [states] reason in states.append("down: \(reason)") }
                client.start()
                self.client = client
            }
        }

        /// Sends a command and waits for its result.
        func send(_ arguments: [[UInt8]]) async -> Result<RedisReply, RedisFailure> {
            await withCheckedContinuation { continuation in
                loop.context.post { [self] in
                    client?.send(arguments) { continuation.resume(returning: $0) }
                }
            }
        }

        func send(_ arguments: String...) async -> Result<RedisReply, RedisFailure> {
            await send(arguments.map { Array($0.utf8) })
        }

        func run(_ script: RedisScript, keys: [String], arguments: [String]) async -> Result<RedisReply, RedisFailure> {
            await withCheckedContinuation { continuation in
                loop.context.post { [self] in
                    client?.run(script, keys: keys, arguments: arguments.map { Array($0.utf8) }) { continuation.resume(returning: $0) }
                }
            }
        }

        func waitReady() async -> Bool {
            await states.wait { $0 == "ready" } != nil
        }
    }

    /// Runs `body` with a client of `url`, and stops its loop however `body` ends.
    static func withClient(
        _ url: String, replyTimeout: Duration = .seconds(2), _ body: (Fixture) async throws -> Void
    ) async throws {
        let fixture = try await Fixture(url, replyTimeout: replyTimeout)
        try await fixture.loop.stopping { try await body(fixture) }
    }

    @Test func repliesOfEveryKindComeBackBinarySafe() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await Self.withClient(redis.url) { fixture in
            #expect(await fixture.waitReady())
            let value: [UInt8] = [0, 1, 2, 255, 13, 10, 0] + Array(repeating: 7, count: 100_000)
            #expect(await fixture.send([Array("SET".utf8), [0, 107], value]) == .success(.status("OK")))
            #expect(await fixture.send([Array("GET".utf8), [0, 107]]) == .success(.bulk(value)))
            #expect(await fixture.send("GET", "missing") == .success(.null))
            #expect(await fixture.send("INCRBY", "n", "41") == .success(.integer(41)))
            #expect(await fixture.send("RPUSH", "l", "a", "", "c") == .success(.integer(3)))
            #expect(await fixture.send("LRANGE", "l", "0", "-1") == .success(.array([.bulk(Array("a".utf8)), .bulk([]), .bulk(Array("c".utf8))])))
            guard case .success(.error(let message)) = await fixture.send("LPUSH", "n", "x") else {
                Issue.record("a command Redis refuses answers with its error")
                return
            }
            #expect(message.hasPrefix("WRONGTYPE"))
            let clients = try redis.command("CLIENT", "LIST")
            #expect(clients.contains("name=callgate:test"))
        }
    }

    @Test func scriptsAreSentWholeOnceThenBySHAAndWholeAgainWhenRedisForgotThem() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await Self.withClient(redis.url) { fixture in
            #expect(await fixture.waitReady())
            let script = RedisScript(name: "echo", source: "return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}")
            #expect(script.sha1 == (try redis.command("SCRIPT", "LOAD", script.source)))
            try redis.command("SCRIPT", "FLUSH")
            func reply(_ count: Int64) -> Result<RedisReply, RedisFailure> {
                .success(.array([.bulk(Array("k".utf8)), .bulk(Array("v".utf8)), .integer(count)]))
            }
            try redis.command("CONFIG", "RESETSTAT")
            #expect(await fixture.run(script, keys: ["k"], arguments: ["v"]) == reply(1))
            #expect(try redis.command("SCRIPT", "EXISTS", script.sha1) == "1")
            #expect(await fixture.run(script, keys: ["k"], arguments: ["v"]) == reply(2))
            let stats = try redis.command("INFO", "commandstats")
            #expect(stats.contains("cmdstat_eval:calls=1,") && stats.contains("cmdstat_evalsha:calls=1,"), "\(stats)")
            // Redis forgot it: the EVALSHA answers NOSCRIPT, and it goes whole once more.
            try redis.command("SCRIPT", "FLUSH")
            #expect(await fixture.run(script, keys: ["k"], arguments: ["v"]) == reply(3))
        }
    }

    @Test func aScriptRunFirstKeepsItsPlaceAmongTheCommandsAfterIt() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await Self.withClient(redis.url) { fixture in
            #expect(await fixture.waitReady())
            let script = RedisScript(name: "set", source: "return redis.call('SET', KEYS[1], ARGV[1])")
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                fixture.loop.context.post {
                    fixture.client?.run(script, keys: ["order"], arguments: [Array("script".utf8)]) { _ in }
                    fixture.client?.send([Array("SET".utf8), Array("order".utf8), Array("plain".utf8)]) { _ in
                        continuation.resume()
                    }
                }
            }
            let last = try redis.command("GET", "order")
            #expect(last == "plain", "the script ran first, as it was sent")
        }
    }

    @Test func commandsFailAtOnceWhileRedisIsAwayAndWorkWhenItComesBack() async throws {
        let redis = try ThrowawayRedis(persistent: true)
        defer { redis.stop() }
        redis.kill()
        try await Self.withClient(redis.url) { fixture in
            guard case .failure(.notConnected) = await fixture.send("PING") else {
                Issue.record("a command with no connection fails at once")
                return
            }
            try redis.start()
            #expect(await fixture.waitReady())
            #expect(await fixture.send("SET", "k", "1") == .success(.status("OK")))

            fixture.states.clear()
            redis.kill()
            #expect(await fixture.states.wait { $0.hasPrefix("down") } != nil)
            guard case .failure(.notConnected) = await fixture.send("GET", "k") else {
                Issue.record("a command after the connection dropped fails at once")
                return
            }
            try redis.start()
            #expect(await fixture.waitReady(), "it reconnects by itself within the backoff")
            #expect(await fixture.send("GET", "k") == .success(.bulk(Array("1".utf8))))
        }
    }

    @Test func aLateReplyDropsTheConnectionAndFailsWhatWaited() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        try await Self.withClient(redis.url, replyTimeout: .milliseconds(300)) { fixture in
            #expect(await fixture.waitReady())
            fixture.states.clear()
            let started = ContinuousClock.now
            try redis.command("CLIENT", "PAUSE", "5000", "ALL")
            guard case .failure(.lost(let reason)) = await fixture.send("PING") else {
                Issue.record("a reply later than the timeout fails the command")
                return
            }
            #expect(reason.contains("no reply within"))
            #expect(ContinuousClock.now - started < .seconds(3), "the deadline, not the paused reply, ended it")
            #expect(await fixture.states.wait { $0.hasPrefix("down") } != nil)
            #expect(await fixture.waitReady(), "and connects again")
            #expect(await fixture.send("PING") == .success(.status("PONG")))
        }
    }

    @Test func logsInWithThePasswordAndReportsARefusedOne() async throws {
        let redis = try ThrowawayRedis(password: "s3cret")
        defer { redis.stop() }
        try await Self.withClient(redis.url + "/2") { fixture in
            #expect(await fixture.waitReady())
            #expect(await fixture.send("SET", "in-db-2", "x") == .success(.status("OK")))
            let stored = try redis.command("-n", "2", "GET", "in-db-2")
            #expect(stored == "x")

        }
        try await Self.withClient("redis://:wrong@127.0.0.1:\(redis.port)") { refused in
            try await Task.sleep(for: .milliseconds(500))
            let error = await refused.loop.onLoop { [refused] in refused.client?.lastError }
            #expect(error?.contains("AUTH refused") == true, "got \(String(describing: error))")
            #expect(!refused.states.all.contains("ready"))
        }
    }

    @Test func aServerThatNeverAnswersIsGivenUpOnWithinTheTimeoutAndTriedAgain() async throws {
        // The kernel completes the TCP handshake of a listening socket nobody accepts from, so
        // the login is what goes unanswered: only our timer ends the attempt.
        let silent = try SilentListener()
        defer { silent.close() }
        try await Self.withClient("redis://127.0.0.1:\(silent.port)") { fixture in
            try await Task.sleep(for: .milliseconds(2_500))
            let error = await fixture.loop.onLoop { [fixture] in fixture.client?.lastError }
            #expect(error?.contains("within") == true, "got \(String(describing: error))")
            guard case .failure(.notConnected) = await fixture.send("PING") else {
                Issue.record("no connection, no command")
                return
            }
        }
    }

    @Test func theContextStopsWithConnectionsOpenAndCommandsWaiting() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let fixture = try await Fixture(redis.url)
        #expect(await fixture.waitReady())
        let outcome = Events<Result<RedisReply, RedisFailure>>()
        await fixture.loop.onLoop { [fixture] in
            fixture.client?.send(["BLPOP", "nothing", "0"]) { outcome.append($0) }
        }
        let started = ContinuousClock.now
        await fixture.loop.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        guard case .failure(.lost) = outcome.all.first else {
            Issue.record("the waiting command was failed by the shutdown: \(outcome.all)")
            return
        }
    }
}

/// A loopback TCP socket that listens and never accepts.
private final class SilentListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard descriptor >= 0, bound, listen(descriptor, 16) == 0 else {
            throw RedisFailure.notConnected("cannot listen on loopback: \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Glibc.close(descriptor)
    }
}
