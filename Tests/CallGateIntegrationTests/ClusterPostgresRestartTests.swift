import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// PostgreSQL restarting under a cluster: calls whose callers are on one node and callees on
/// another go on through it, and the log has every status a client saw, once.
@Suite(.serialized) struct ClusterPostgresRestartTests {
    @Test func callsAcrossNodesGoOnThroughAPostgresRestartAndLoseNothing() async throws {
        let postgres = try await offPool { try ThrowawayPostgres() }
        defer { postgres.stop() }
        let database = try await offPool { try postgres.createDatabase("cluster") } + "?sslmode=disable"
        // An op forwarded to a call's owner is answered once the owner's write is durable: the
        // owner says its answer is held, so the forward's timeout (2 s) does not cut short an
        // outage longer than it.
        let cluster = try await RoutingCluster(
            ["a", "b"], ["--max-calls-per-minute", "100000", "--max-messages-per-second", "0"], database: database)
        defer { cluster.stop() }
        let witness = TerminalStatusWitness()
        let count = 4
        var connected: [(CallGateClient, CallGateClient)] = []
        for index in 0..<count {
            connected.append((try await cluster.device("c\(index)", on: "a"), try await cluster.device("r\(index)", on: "b")))
        }
        let pairs = connected
        let stopped = StopFlag()
        var finishedBefore = 0
        let results = try await withThrowingTaskGroup(of: String?.self) { group in
            for (index, pair) in pairs.enumerated() {
                group.addTask {
                    let (_, failure) = await CrashSafetyTests.call(
                        pair.0, pair.1, callee: "r\(index)", witness: witness, until: { stopped.isSet },
                        pushTimeout: .seconds(20))
                    return failure.map { "\($0)" }
                }
            }
            try await Task.sleep(for: .seconds(1))
            finishedBefore = witness.statuses.count
            try await offPool { postgres.shutDown() }
            try await Task.sleep(for: .seconds(3))
            try await offPool { try postgres.start() }
            let recovered = ContinuousClock.now + .seconds(30)
            while witness.statuses.count < finishedBefore + 4 * count, ContinuousClock.now < recovered {
                try await Task.sleep(for: .milliseconds(100))
            }
            stopped.set()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == nil }, "\(results.compactMap { $0 })")
        #expect(witness.contradictions.isEmpty, "\(witness.contradictions)")
        let seen = witness.statuses
        #expect(seen.count >= finishedBefore + 4 * count, "calls went on after the restart")
        try await CrashSafetyTests.expectLoggedOnce(
            seen, pairs: count, port: try #require(cluster.nodes["b"]).port, tokens: cluster.tokens)
    }
}
