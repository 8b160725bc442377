import CallGateBench
import Foundation
import Testing

/// The generator's `drain` scenario against two real gateways: the sockets the drained one
/// closes with 1012 move to the other within the hint, and the run counts every move. Only
/// counts are checked, never timings.
@Suite("callgate-bench drain against two real gateways", .serialized)
struct BenchDrainTests {
    @Test func everySocketOfTheDrainedGatewayMovesToTheOther() async throws {
        let drained = try await TestGateway { $0.drainWindow = .seconds(1) }
        defer { drained.shutdown() }
        let survivor = try await TestGateway()
        defer { survivor.shutdown() }
        var settings = BenchConfiguration(
            scenario: .drain, port: drained.port, jwtSecret: TestGateway.secret, sockets: 40, duration: 5,
            alsoPorts: [survivor.port])
        settings.label = "drain test"
        let run = Task { try await BenchRunner.run(settings) }
        _ = try await drained.scrape { $0["callgate_sockets_open"] == 20 }
        #expect(try await drained.admin("POST", "/v1/admin/drain").0 == 202)

        let result = try await run.value
        #expect(result.errors.isEmpty, "\(result.errors)")
        let moves = try #require(result.moves)
        #expect(moves.closed == 20)
        #expect(moves.reconnected == 20)
        #expect(moves.failedReconnects == 0)
        #expect(result.counts.reconnects == 20)
        #expect(result.metrics["reconnect"]?.count == 20)
        #expect(try await drained.scrape()["callgate_sockets_open"] == 0)
        let json = String(decoding: try ResultFiles.json(result), as: UTF8.self)
        #expect(json.contains("\"closedPerSecond\""))
    }
}
