import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Nodes of a cluster, as real `callgate serve --cluster` processes on a throwaway Redis and a
/// PostgreSQL database: they join, keep a heartbeat lease, leave on SIGTERM, let the lease lapse
/// when killed, and keep their sockets through a Redis restart.
@Suite(.serialized) struct ClusterJoinTests {
    static let secret = "cluster-membership-secret"

    private func node(_ id: String, redis: ThrowawayRedis, database: String) throws -> GatewayProcess {
        try .clusterNode(id, redis: redis, database: database, secret: Self.secret, ["--admin-key", "cluster-admin"])
    }

    /// `GET /readyz` of the node on `port`: its status and body.
    private func readiness(_ port: Int) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    private func members(_ redis: ThrowawayRedis) throws -> Set<String> {
        Set(try redis.command("SMEMBERS", "cg:{cluster}:nodes").split(separator: "\n").map(String.init))
    }

    @Test func nodesJoinWithDistinctNumbersLeaveOnSIGTERMAndLapseWhenKilled() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        let a = try node("a", redis: redis, database: database)
        let b = try node("b", redis: redis, database: database)
        let c = try node("c", redis: redis, database: database)
        defer { [a, b, c].forEach { $0.kill() } }

        #expect(try members(redis) == ["a", "b", "c"])
        let leases = try ["a", "b", "c"].map { try redis.command("GET", "cg:{cluster}:node:\($0)") }
        let numbers = leases.compactMap { $0.split(separator: "|").last.flatMap { Int($0) } }
        #expect(Set(numbers).count == 3, "each node has a number of its own: \(leases)")
        for node in [a, b, c] {
            #expect(try await readiness(node.port).status == 200)
        }

        b.kill()
        #expect(try await eventually(within: 5) { try redis.command("EXISTS", "cg:{cluster}:node:b") == "0" }, "a killed node's lease lapses")
        #expect(try await eventually(within: 5) { try members(redis) == ["a", "c"] }, "a survivor took it over")

        c.send(SIGTERM)
        #expect(try await c.exitStatus(within: .seconds(15)) == 0)
        #expect(try redis.command("EXISTS", "cg:{cluster}:node:c") == "0", "a node that stops leaves at once")
        #expect(try await eventually(within: 3) { try members(redis) == ["a"] }, "and the survivor takes it over")
        #expect(try await readiness(a.port).status == 200)
    }

    @Test func aNodeKeepsItsSocketsThroughARedisRestartAndIsUnreadyMeanwhile() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        let a = try node("solo", redis: redis, database: database)
        defer { a.kill() }
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let client = try await CallGateClient.open(host: "127.0.0.1", port: a.port, loop: loop)
        let connected = try await client.connect(token: try await tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 600).token)
        let number = try redis.command("GET", "cg:{cluster}:node:solo").split(separator: "|").last.flatMap { UInt64($0) }
        #expect(UInt64(connected.connectionId).map { $0 >> 44 } == number, "connection ids carry the node number")

        redis.kill()
        #expect(try await eventually(within: 5) {
            let (status, body) = try await readiness(a.port)
            return status == 503 && body.contains("suspended")
        }, "a node that lost Redis says it is not ready")
        #expect(try await RawWebSocket.open(port: a.port).status == 503, "and sends new sockets elsewhere")
        _ = try await client.ping()

        try redis.start()
        #expect(try await eventually(within: 5) { try await readiness(a.port).status == 200 }, "and is ready again once Redis is back")
        #expect(try redis.command("EXISTS", "cg:{cluster}:node:solo") == "1")
        #expect(try await RawWebSocket.open(port: a.port).status == 101)
        _ = try await client.ping()
    }

    @Test func aSecondProcessUnderALiveNodesIDFailsToStartAndTakesNothing() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        let a = try node("a", redis: redis, database: database)
        defer { a.kill() }
        let lease = try redis.command("GET", "cg:{cluster}:node:a")
        let started = ContinuousClock.now
        let twin = try await CommandRun.run([
            GatewayProcess.executable.path, "serve", "--port", "0", "--cluster", redis.url, "--database", database,
            "--node-id", "a", "--jwt-secret", Self.secret, "--cluster-secret", GatewayProcess.clusterSecret,
        ])
        #expect(twin.exitCode != 0)
        #expect(twin.output.contains("node id a is held by a live process"), "\(twin)")
        #expect(ContinuousClock.now - started < .seconds(8), "it gives up after the lease could have lapsed")
        #expect(try redis.command("GET", "cg:{cluster}:node:a") == lease, "the live node keeps its lease")
        #expect(try await readiness(a.port).status == 200)
    }

    @Test func clusterModeRefusesWhatItCannotRunOn() async throws {
        let directory = try TemporaryDirectory()
        let executable = GatewayProcess.executable.path
        let sqlite = try await CommandRun.run([
            executable, "serve", "--port", "0", "--database", directory.path("x.sqlite"), "--cluster", "redis://127.0.0.1:6379",
            "--node-id", "a",
        ])
        #expect(sqlite.exitCode != 0)
        #expect(sqlite.output.contains("--database postgres://"), "\(sqlite)")
        let database = "postgres://callgate@127.0.0.1:1/none"
        for (arguments, reason) in [
            (["--cluster", "rediss://127.0.0.1:6379", "--node-id", "a"], "no TLS"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a b"], "not usable"),
            (["--cluster", "redis://127.0.0.1:6379"], "give --node-id"),
            (["--node-id", "a"], "give --cluster"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a"], "needs --cluster-secret"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", "short"], "at least 32 bytes, got 5"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", String(repeating: "s", count: 32),
              "--cluster-previous-secret", "old"], "--cluster-previous-secret must be at least 32 bytes"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", String(repeating: "s", count: 32),
              "--cluster-message-max-age", "0"], "--cluster-message-max-age must be 1 to 3600 seconds, got 0"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", String(repeating: "s", count: 32),
              "--cluster-previous-secret", String(repeating: "p", count: 32)], "needs --cluster-previous-secret-until"),
            (["--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", String(repeating: "s", count: 32),
              "--cluster-previous-secret", String(repeating: "p", count: 32), "--cluster-previous-secret-until", "99999999999"],
             "must be at most 604800 seconds ahead"),
        ] {
            let run = try await CommandRun.run([executable, "serve", "--port", "0", "--database", database] + arguments)
            #expect(run.exitCode != 0)
            #expect(run.output.contains(reason), "\(arguments): \(run)")
        }
    }
}
