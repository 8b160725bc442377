import CallGateBench
import CallGateServer
import Foundation
import Testing

/// The built `callgate listen`, `callgate call` and `callgate-bench` executables against a real
/// gateway: their arguments, output and exit codes.
@Suite("command lines against a real gateway", .serialized)
struct CommandLineTests {
    private func clientArguments(_ gateway: TestGateway, as uid: String) -> [String] {
        ["--as", uid, "--port", String(gateway.port), "--jwt-secret", TestGateway.secret]
    }

    @Test func listenAutoAcceptsACallThatCtrlCEnds() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let listen = try ChildProcess("callgate", ["listen", "--auto", "accept"] + clientArguments(gateway, as: "bob"))
        #expect(await listen.waitForOutput("answering every call with accept"))
        let call = try ChildProcess("callgate", ["call", "bob", "--video"] + clientArguments(gateway, as: "alice"))
        #expect(await call.waitForOutput("in the call; Ctrl-C hangs up"))
        #expect(await listen.waitForOutput("you accepted the call from alice"))
        call.interrupt()
        #expect(await call.exitStatus() == 0)
        #expect(call.standardOutput.contains("ringing bob (video call"))
        #expect(call.standardOutput.contains("you hung up"))
        #expect(await listen.waitForOutput("alice hung up; the call is over"))
        listen.interrupt()
        #expect(await listen.exitStatus() == 0)
    }

    @Test func versionNamesTheRelease() async throws {
        let version = try ChildProcess("callgate", ["--version"])
        #expect(await version.exitStatus() == 0)
        #expect(version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == GatewayVersion.release)
    }

    @Test func callExplainsAServerThatIsNotRunning() async throws {
        let port = try await TestGateway.unusedPort()
        let call = try ChildProcess("callgate", ["call", "bob", "--as", "alice", "--port", String(port), "--jwt-secret", "x"])
        #expect(await call.exitStatus() == 1)
        #expect(call.standardError.contains("cannot reach the gateway at ws://127.0.0.1:\(port)/ws"))
    }

    @Test func benchWritesJSONAndReport() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("run.json")
        let report = folder.appendingPathComponent("run.html")
        let bench = try ChildProcess("callgate-bench", [
            "ring", "--port", String(gateway.port), "--jwt-secret", TestGateway.secret, "--sockets", "10", "--rate", "10",
            "--duration", "1", "--json", json.path, "--report", report.path, "--label", "cli test",
        ])
        #expect(await bench.exitStatus() == 0)
        #expect(bench.standardOutput.contains("callgate-bench ring [cli test]"))
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        #expect(object?["scenario"] as? String == "ring")
        #expect(object?["label"] as? String == "cli test")
        #expect((object?["metrics"] as? [String: Any])?["ring"] != nil)
        #expect(try String(contentsOf: report, encoding: .utf8).contains("<svg"))
    }

    @Test func benchSaysInOneLineWhyItCannotRun() async throws {
        let port = try await TestGateway.unusedPort()
        let unreachable = try ChildProcess("callgate-bench", ["ring", "--port", String(port), "--jwt-secret", "x", "--sockets", "4"])
        #expect(await unreachable.exitStatus() == 1)
        #expect(unreachable.standardError == "callgate-bench: cannot reach 127.0.0.1:\(port) (Connection refused): is the gateway running there?\n")
        let tooMany = DescriptorLimit.current().hard + 1
        let limited = try ChildProcess("callgate-bench", ["idle", "--port", String(port), "--jwt-secret", "x", "--sockets", String(tooMany)])
        #expect(await limited.exitStatus() == 1)
        #expect(limited.standardError.contains("file descriptors"))
    }
}
