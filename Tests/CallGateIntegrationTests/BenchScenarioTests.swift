import CallGateBench
import Foundation
import Testing

/// The load generator's scenarios against a real gateway, at a scale a shared machine runs in a
/// few seconds. Only counts are checked, never timings.
@Suite("callgate-bench scenarios against a real gateway", .serialized)
struct BenchScenarioTests {
    private func configuration(_ scenario: Scenario, gateway: TestGateway) -> BenchConfiguration {
        BenchConfiguration(
            scenario: scenario, port: gateway.port, jwtSecret: TestGateway.secret, adminKey: TestGateway.adminKey,
            duration: 2)
    }

    @Test func ringEveryInitiateRingsOnceAndEveryCallCompletes() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.ring, gateway: gateway)
        settings.sockets = 20
        settings.rate = 20
        let result = try await BenchRunner.run(settings)
        let counts = result.counts
        #expect(result.errors.isEmpty)
        #expect(counts.connected == 20)
        #expect(counts.initiated > 0)
        #expect(counts.initiateAccepted == counts.initiated)
        #expect(counts.incoming == counts.initiated)
        #expect(counts.accepted == counts.initiated)
        #expect(counts.ended == counts.initiated)
        #expect(counts.completed == counts.initiated)
        #expect(result.metrics["ring"]?.count == UInt64(counts.incoming))
        #expect(result.metrics["accept"]?.count == UInt64(counts.accepted))
        #expect(result.metrics["connect"]?.count == 20)
    }

    @Test func groupEveryRingReachesTheOtherFourMembers() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.group, gateway: gateway)
        settings.sockets = 25
        settings.groupSize = 5
        settings.rate = 10
        let result = try await BenchRunner.run(settings)
        let counts = result.counts
        #expect(result.errors.isEmpty)
        #expect(counts.connected == 25)
        #expect(counts.initiated > 0)
        #expect(counts.fanouts == counts.initiated)
        #expect(counts.deliveries == 4 * counts.initiated)
        #expect(counts.cancelled == counts.deliveries)
        #expect(counts.completed == counts.initiated)
        #expect(result.metrics["fanout"]?.count == UInt64(counts.fanouts))
        #expect(result.metrics["delivery"]?.count == UInt64(counts.deliveries))
        let (status, body) = try await gateway.admin("GET", "/v1/groups/bench-g4")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"u24\""))
    }

    @Test func idleHoldsFiftySocketsFromTwoAddressesAndReadsServerMemory() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.idle, gateway: gateway)
        settings.sockets = 50
        settings.duration = 1
        settings.addresses = 2
        settings.serverPID = getpid()
        let result = try await BenchRunner.run(settings)
        #expect(result.errors.isEmpty)
        #expect(result.counts.connected == 50)
        #expect(result.metrics["connect"]?.count == 50)
        #expect(result.config.addresses == 2)
        let server = try #require(result.server)
        #expect(server.rssBeforeBytes > 0 && server.rssAfterBytes > 0)
    }

    @Test func churnReconnectsWhilePairsKeepRinging() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.churn, gateway: gateway)
        settings.sockets = 20
        settings.rate = 10
        let result = try await BenchRunner.run(settings)
        let counts = result.counts
        #expect(result.errors.isEmpty)
        #expect(counts.disconnects > 0)
        #expect(counts.reconnects == counts.disconnects)
        #expect(counts.incoming == counts.initiated)
        #expect(counts.completed == counts.initiated)
    }

    @Test func aWrongSecretStopsTheRunWithAnAuthReason() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.idle, gateway: gateway)
        settings.jwtSecret = "not-the-secret"
        settings.sockets = 10
        let error = await #expect(throws: BenchError.self) { try await BenchRunner.run(settings) }
        #expect(error?.message.contains("AUTH_ERR") == true)
    }

    @Test func anUnreachableGatewayStopsTheRunBeforeConnecting() async throws {
        let port = try await TestGateway.unusedPort()
        let settings = BenchConfiguration(scenario: .ring, port: port, jwtSecret: TestGateway.secret, sockets: 4)
        let error = await #expect(throws: BenchError.self) { try await BenchRunner.run(settings) }
        #expect(error?.message.contains("cannot reach 127.0.0.1:\(port)") == true)
    }

    @Test func groupWithAWrongAdminKeySaysSo() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        var settings = configuration(.group, gateway: gateway)
        settings.adminKey = "wrong"
        settings.sockets = 10
        settings.groupSize = 5
        let error = await #expect(throws: BenchError.self) { try await BenchRunner.run(settings) }
        #expect(error?.message.contains("401") == true)
    }
}
