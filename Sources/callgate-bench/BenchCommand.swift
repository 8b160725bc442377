import ArgumentParser
import CallGateBench
import Foundation

/// `callgate-bench`: the load generator. Parses the options, runs one scenario, prints the
/// summary, writes the JSON and the HTML report. Exits 0 when the run completed (however slow),
/// 1 with a one-line reason on standard error when it could not run.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callgate-bench",
        abstract: "Load generator for CallGate (or any gateway speaking protocol v1).",
        discussion: """
            Users are u0, u1, ...; their tokens are minted locally with --jwt-secret. Scenarios:
              idle   hold --sockets authenticated sockets for --duration seconds
              ring   pairs (u0 calls u1, ...) at --rate calls/s: initiate, incoming, accept, end
              group  groups of --group-size (bench-g0, ...) created with --admin-key; --rate group
                     rings/s, each cancelled once every member got it
              churn  half the sockets ring in pairs at --rate calls/s, the other half reconnect
                     at --rate sockets/s
              drain  hold the sockets over --port and --also-port for --duration seconds while
                     you drain a gateway (SIGTERM, POST /v1/admin/drain): each socket it closes
                     with 1012 moves to the next gateway within its reconnect hint
            """
    )

    @Argument(help: "idle, ring, group, churn or drain.")
    var scenario: Scenario

    @Option(help: "Gateway host (default 127.0.0.1).")
    var host = "127.0.0.1"

    @Option(help: "Gateway port (default 8080).")
    var port = 8080

    @Option(
        name: .customLong("also-port"),
        help: "Another gateway on --host, such as a second node of a cluster (repeat for more): socket i connects to the i-th of --port and these in turn, so a ring pair's caller and callee are on different gateways.")
    var alsoPorts: [Int] = []

    @Option(name: .customLong("jwt-secret"), help: "The gateway's HS256 token secret.")
    var jwtSecret: String

    @Option(name: .customLong("admin-key"), help: "The gateway's admin key (group creates its groups with it).")
    var adminKey: String?

    @Option(help: "Sockets to connect (default 1000).")
    var sockets: Int?

    @Option(help: "Seconds the scenario runs once every socket is connected (default 10).")
    var duration: Double = 10

    @Option(help: "Calls/s (ring, churn), group rings/s (group), reconnects/s (churn). Default 100, group 10.")
    var rate: Double?

    @Option(name: .customLong("group-size"), help: "Members per group, the caller included (default 10).")
    var groupSize = 10

    @Option(help: "Spread sockets over source addresses 127.0.0.1 ... 127.0.0.N (default: one per 5,000 sockets; 1 binds nothing).")
    var addresses: Int?

    @Option(name: .customLong("server-pid"), help: "The gateway's process id, to measure its memory from /proc.")
    var serverPID: Int32?

    @Option(help: "Write the results as JSON to this file (schema: docs/bench-json.md).")
    var json: String?

    @Option(help: "Write an HTML report with a latency percentile plot to this file.")
    var report: String?

    @Option(help: "Free text kept in the JSON and the report.")
    var label: String?

    func run() async throws {
        let configuration = BenchConfiguration(
            scenario: scenario, host: host, port: port, jwtSecret: jwtSecret, adminKey: adminKey, sockets: sockets,
            duration: duration, rate: rate, groupSize: groupSize, addresses: addresses, serverPID: serverPID, label: label,
            alsoPorts: alsoPorts.isEmpty ? nil : alsoPorts)
        let progress = ProgressPrinter()
        let result: BenchResult
        do {
            result = try await BenchRunner.run(configuration, progress: progress.show)
        } catch {
            progress.finish()
            FileHandle.standardError.write(Data("callgate-bench: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        progress.finish()
        print(SummaryTable.render(result))
        do {
            if let json { try ResultFiles.writeJSON(result, to: json) }
            if let report { try ResultFiles.writeReport(result, to: report) }
        } catch {
            FileHandle.standardError.write(Data("callgate-bench: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension Scenario: ExpressibleByArgument {}
