import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Synchronization
import Testing
import TestSupport

/// PostgreSQL going away under a running gateway: the calls in flight wait for it (replies that
/// reveal a terminal status only once it is durable), the pool reconnects when it is back, and
/// the log ends up with every status a client saw, exactly once. The real executable on a
/// PostgreSQL server of the test's own, restarted in the middle of the calls.
@Suite("PostgreSQL restarts under a running gateway")
struct PostgresRestartTests {
    static let secret = "pg-restart-secret"

    @Test(arguments: [false, true])
    func callsGoOnThroughARestartOfTheServerAndLoseNothing(immediate: Bool) async throws {
        let postgres = try await offPool { try ThrowawayPostgres() }
        defer { postgres.stop() }
        let database = try await offPool { try postgres.createDatabase("restart") } + "?sslmode=disable"
        // The calling loops outrun the per-socket message rate on a fast machine: lifted.
        let gateway = try GatewayProcess(
            arguments: [
                "--database", database, "--jwt-secret", Self.secret, "--admin-key", "restart-admin",
                "--max-calls-per-minute", "100000", "--max-messages-per-second", "0",
            ])
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let witness = TerminalStatusWitness()

        let pairs = 6
        let devices = try await CrashSafetyTests.connectPairs(pairs, port: gateway.port, tokens: tokens, loop: loop)

        let stopped = StopFlag()
        var finishedBeforeRestart = 0
        let results = try await withThrowingTaskGroup(of: (started: Int, failure: String?).self) { group in
            for (index, pair) in devices.enumerated() {
                group.addTask {
                    let (started, failure) = await CrashSafetyTests.call(
                        pair.0, pair.1, callee: "r\(index)", witness: witness, until: { stopped.isSet },
                        pushTimeout: .seconds(20))
                    return (started, failure.map { "\($0)" })
                }
            }
            try await Task.sleep(for: .seconds(1))
            finishedBeforeRestart = witness.statuses.count
            try await offPool {
                if immediate { postgres.shutDownImmediately() } else { postgres.shutDown() }
            }
            try await Task.sleep(for: .seconds(1))
            try await offPool { try postgres.start() }
            // Calls go on: every pair finishes a few more (or the test fails below after 30 s).
            let recovered = ContinuousClock.now + .seconds(30)
            while witness.statuses.count < finishedBeforeRestart + 4 * pairs, ContinuousClock.now < recovered {
                try await Task.sleep(for: .milliseconds(100))
            }
            stopped.set()
            // A reply that never comes would hold a loop forever: give them 45 s, then kill the
            // gateway, which ends them with a failure.
            let pid = gateway.process.processIdentifier
            let watchdog = Task {
                try await Task.sleep(for: .seconds(45))
                kill(pid, SIGKILL)
            }
            defer { watchdog.cancel() }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.failure == nil }, "\(results.compactMap(\.failure))\n\(gateway.log.text)")
        let seen = witness.statuses
        #expect(witness.contradictions.isEmpty, "\(witness.contradictions)")
        #expect(seen.count >= finishedBeforeRestart + 4 * pairs, "calls went on after the restart")

        try await CrashSafetyTests.expectLoggedOnce(seen, pairs: pairs, port: gateway.port, tokens: tokens)
        #expect(gateway.terminate() == 0)
    }
}

/// Tells the calling loops to stop after their current call; set from the test's task.
final class StopFlag: Sendable {
    private let flag = Atomic(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func set() {
        flag.store(true, ordering: .relaxed)
    }
}
