import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Testing
import TestSupport

/// A cluster node's call ids while its PostgreSQL is down: the ids already reserved are used,
/// then new calls are refused with ERR_STORE_UNAVAILABLE, and once the server is back the node
/// reserves more and every call is logged under an id of its own.
@Suite(.serialized) struct ClusterCallIDOutageTests {
    static let secret = "cluster-call-id-outage-secret"

    @Test func idsRunOutWhilePostgresIsDownAndComeBackWithIt() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let postgres = try await offPool { try ThrowawayPostgres() }
        defer { postgres.stop() }
        let database = try await offPool { try postgres.createDatabase("ids") } + "?sslmode=disable"
        let node = try GatewayProcess.clusterNode(
            "a", redis: redis, database: database, secret: Self.secret, ["--max-calls-per-minute", "1000"])
        defer { node.kill() }
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        var callers = 0
        func caller() async throws -> CallGateClient {
            callers += 1
            let client = try await CallGateClient.open(host: "127.0.0.1", port: node.port, loop: loop)
            _ = try await client.connect(token: try await tokens.mint(user: User(uid: "caller\(callers)", name: "Caller"), ttl: 600).token)
            return client
        }

        try await offPool { postgres.shutDown() }
        var placed = 0
        var refused = false
        while placed < 200, !refused {
            let client = try await caller()
            do {
                _ = try await client.initiateCall(to: "nobody-online")
                placed += 1
            } catch let error as ErrorBody {
                #expect(error.code == .storeUnavailable, "\(error)")
                refused = true
            }
        }
        #expect(refused, "with the database down, the node runs out of call ids")
        #expect(placed >= 32, "the ids reserved before the outage were used first: \(placed)")

        try await offPool { try postgres.start() }
        let deadline = ContinuousClock.now + .seconds(20)
        var recovered = false
        let late = try await caller()
        while !recovered, ContinuousClock.now < deadline {
            do {
                _ = try await late.initiateCall(to: "nobody-online")
                recovered = true
            } catch let error as ErrorBody {
                #expect(error.code == .storeUnavailable, "\(error)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(recovered, "once the database is back the node reserves ids again")

        let expected = placed + 1
        var counts: [String] = []
        let written = try await eventually(within: 20) {
            counts = try await databaseRows(database, "SELECT count(*) || ' ' || count(DISTINCT id) FROM calls")
            return counts == ["\(expected) \(expected)"]
        }
        #expect(written, "every call logged once, each under its own id: \(counts)\n\(node.log.text)")
    }
}
