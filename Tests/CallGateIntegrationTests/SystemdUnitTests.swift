import Foundation
import Testing
import TestSupport

/// deploy/systemd: the unit passes `systemd-analyze verify` (where that command exists), keeps
/// its hardening, and the environment example names every variable `callgate serve` reads.
@Suite("systemd unit")
struct SystemdUnitTests {
    static let systemdAnalyze = CommandRun.locate("systemd-analyze")
    static let unit = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/systemd/callgate.service")
    static let environmentExample = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/systemd/callgate.env.example")
    /// The cluster node template: one node per instance, named by its node id.
    static let nodeTemplate = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/systemd/callgate@.service")
    static let installedBinary = "/usr/local/bin/callgate"

    /// `verify` insists that ExecStart's binary exists, so it checks a copy of the unit whose
    /// ExecStart runs the binary this build made; every other line is the committed one.
    @Test(
        .enabled(if: systemdAnalyze != nil, "systemd-analyze is not installed here, so the units were not verified"),
        arguments: [(unit, "callgate.service"), (nodeTemplate, "callgate@gw1.service")])
    func theUnitVerifiesWithTheBuiltBinary(unit: URL, installedAs name: String) async throws {
        let analyzer = try #require(Self.systemdAnalyze)
        let committed = try String(contentsOf: unit, encoding: .utf8)
        #expect(committed.contains("ExecStart=\(Self.installedBinary) serve"))
        let directory = try TemporaryDirectory()
        let copy = directory.path(name)
        try committed.replacingOccurrences(of: Self.installedBinary, with: GatewayProcess.executable.path)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let run = try await CommandRun.run([analyzer, "verify", copy])
        #expect(run.exitCode == 0, "\(run)")
        let complaints = run.output.split(separator: "\n").filter { $0.contains(name) }
        #expect(complaints.isEmpty, "systemd-analyze warned about the unit: \(run.output)")
    }

    @Test func theUnitRunsAsItsOwnUserWithTheDatabaseInItsStateDirectoryAndHardened() throws {
        let lines = Set(try String(contentsOf: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init))
        let required = [
            "User=callgate", "Group=callgate", "EnvironmentFile=/etc/callgate/callgate.env",
            "ExecStart=\(Self.installedBinary) serve --database /var/lib/callgate/callgate.sqlite",
            "StateDirectory=callgate", "LimitNOFILE=65536", "Restart=on-failure", "NoNewPrivileges=yes",
            "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=",
            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
        ]
        for line in required {
            #expect(lines.contains(line), "callgate.service lacks '\(line)'")
        }
    }

    @Test func eachClusterNodeRunsUnderItsInstanceNameWithItsOwnSettingsAndTheSameHardening() throws {
        let template = Set(try String(contentsOf: Self.nodeTemplate, encoding: .utf8).split(separator: "\n").map(String.init))
        for line in [
            "ExecStart=\(Self.installedBinary) serve --node-id %i", "EnvironmentFile=/etc/callgate/callgate.env",
            "EnvironmentFile=/etc/callgate/%i.env", "StateDirectory=callgate/%i", "WorkingDirectory=/var/lib/callgate/%i",
        ] {
            #expect(template.contains(line), "callgate@.service lacks '\(line)'")
        }
        let single = Set(try String(contentsOf: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init))
        let hardening = single.filter { line in
            ["Protect", "Restrict", "Private", "NoNewPrivileges", "Capability", "SystemCall", "Limit", "User=", "Group="]
                .contains { line.hasPrefix($0) }
        }
        #expect(hardening.count >= 15)
        #expect(hardening.subtracting(template).isEmpty, "callgate@.service lacks \(hardening.subtracting(template).sorted())")
    }

    @Test func theEnvironmentExampleNamesEveryVariableServeReads() async throws {
        let help = try await CommandRun.run([GatewayProcess.executable.path, "serve", "--help"])
        #expect(help.exitCode == 0, "\(help)")
        let pattern = try NSRegularExpression(pattern: "CALLGATE_[A-Z_]+")
        let text = help.output as NSString
        let names = Set(pattern.matches(in: help.output, range: NSRange(location: 0, length: text.length)).map {
            text.substring(with: $0.range)
        })
        #expect(names.count >= 9, "serve --help names fewer variables than expected: \(names.sorted())")
        let example = try String(contentsOf: Self.environmentExample, encoding: .utf8)
        for name in names.sorted() {
            #expect(example.contains("\(name)="), "callgate.env.example does not mention \(name)")
        }
    }
}
