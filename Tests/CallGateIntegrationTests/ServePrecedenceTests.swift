import Foundation
import Testing
import TestSupport

/// A flag beats the environment, the environment beats the config file, the file beats the
/// default: on a running gateway (the web demo at / is on or off), and in `config print`, which
/// also keeps every secret out of its output.
@Suite("Precedence of flags, environment and config file")
struct ServePrecedenceTests {
    /// Starts `serve` with `file` and `arguments` under `environment`, and tells whether it
    /// serves the web demo.
    private func servesWebApp(
        file: String, arguments: [String] = [], environment: [String: String] = [:], in directory: TemporaryDirectory
    ) async throws -> Bool {
        var clean = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("CALLGATE_") }.mapValues { _ in "" }
        clean.merge(environment) { $1 }
        let gateway = try GatewayProcess(
            arguments: ["--config", file, "--database", directory.path("\(UUID().uuidString).sqlite")] + arguments,
            environment: clean)
        defer { _ = gateway.terminate() }
        return try await adminRequest(port: gateway.port, "GET", "/", key: nil).0 == 200
    }

    @Test func aFlagBeatsTheVariableWhichBeatsTheFileWhichBeatsTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let off = directory.path("off.yaml"), empty = directory.path("empty.yaml")
        try "web-app: off\njwt-secret: file-secret\n".write(toFile: off, atomically: true, encoding: .utf8)
        try "".write(toFile: empty, atomically: true, encoding: .utf8)

        #expect(try await servesWebApp(file: empty, in: directory), "the default is on")
        #expect(try await !servesWebApp(file: off, in: directory), "the file turns it off")
        #expect(try await servesWebApp(file: off, environment: ["CALLGATE_WEB_APP": "on"], in: directory),
                "the variable beats the file")
        #expect(try await !servesWebApp(file: off, arguments: ["--no-web-app"], environment: ["CALLGATE_WEB_APP": "on"], in: directory),
                "the flag beats the variable")
        #expect(try await servesWebApp(file: off, arguments: ["--web-app"], environment: ["CALLGATE_WEB_APP": "off"], in: directory),
                "the flag beats the variable")
    }

    @Test func configPrintTellsEachSourceAndRedactsEverySecret() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("callgate.yaml")
        try """
            port: 9000
            max-devices-per-user: 4
            jwt-secret: file-jwt-secret
            database: postgres://gate:file-db-password@db.internal/calls
            cluster: redis://callgate:file-redis-password@10.0.0.5:6379
            webhook-secret: whsec_file-webhook-secret
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["CALLGATE_PORT": "9100", "CALLGATE_ADMIN_KEY": "env-admin-key", "CALLGATE_CLUSTER_SECRET": "env-cluster-secret"]
        let json = try await ServeSettingsCoverageTests.printed(environment, file: file)
        #expect(json["port"]?["value"] as? Int == 9100 && json["port"]?["source"] as? String == "environment")
        #expect(json["max-devices-per-user"]?["value"] as? Int == 4)
        #expect(json["max-devices-per-user"]?["source"] as? String == "file \(file)")
        #expect(json["host"]?["value"] as? String == "127.0.0.1" && json["host"]?["source"] as? String == "default")
        #expect(json["max-connections"]?["default"] as? String == "the open-file limit at start less 512")
        #expect(json["jwt-secret"]?["value"] as? String == "<redacted>")
        #expect(json["database"]?["value"] as? String == "postgres://gate:<redacted>@db.internal/calls")
        #expect(json["cluster"]?["value"] as? String == "redis://callgate:<redacted>@10.0.0.5:6379")

        for format in ["yaml", "json"] {
            let run = try await CallgateRun.run(["config", "print", "--config", file, "--format", format], environment: environment)
            #expect(run.exitCode == 0, "\(run)")
            for secret in ["file-jwt-secret", "file-db-password", "file-redis-password", "file-webhook-secret", "env-admin-key",
                           "env-cluster-secret"] {
                #expect(!run.standardOutput.contains(secret) && !run.standardError.contains(secret), "\(format) shows \(secret)")
            }
        }
        let yaml = try await CallgateRun.run(["config", "print", "--config", file], environment: environment)
        #expect(yaml.standardOutput.contains("port: 9100  # CALLGATE_PORT\n"), "\(yaml)")
        #expect(yaml.standardOutput.contains("max-devices-per-user: 4  # file \(file)\n"), "\(yaml)")
        #expect(yaml.standardOutput.contains("# max-connections: the open-file limit at start less 512 (default)\n"), "\(yaml)")
    }

    @Test func aValueThatDoesNotFitIsNamedWhereverItComesFrom() async throws {
        let directory = try TemporaryDirectory()
        let run = try await CallgateRun.run(
            ["serve", "--database", directory.path("x.sqlite"), "--max-queued-frames", "0"],
            environment: ["CALLGATE_PORT": "eighty", "CALLGATE_WEB_APP": "maybe", "CALLGATE_ALLOWED_ORIGINS": "https://a.example"])
        #expect(run.exitCode != 0 && run.errorLines.count == 1, "\(run)")
        #expect(run.standardError.contains("CALLGATE_ALLOWED_ORIGINS is now CALLGATE_ALLOWED_ORIGIN"), "\(run)")

        let values = try await CallgateRun.run(
            ["serve", "--database", directory.path("x.sqlite"), "--max-queued-frames", "0"],
            environment: ["CALLGATE_PORT": "eighty", "CALLGATE_WEB_APP": "maybe"])
        #expect(values.exitCode != 0 && values.errorLines.count == 1, "\(values)")
        for problem in ["CALLGATE_PORT must be an integer, got 'eighty'", "CALLGATE_WEB_APP must be on or off, got 'maybe'",
                        "--max-queued-frames must be at least 1, got 0"] {
            #expect(values.standardError.contains(problem), "\(values)")
        }
    }
}
