import CallGateClient
import CallGateProtocol
import Foundation
import TestSupport
import Testing

/// `callgate serve` with public keys and `callgate token --private-key`, as an operator runs
/// them: the flags and variables, what `serve` prints and refuses, and a token from one
/// accepted by the other.
@Suite("Token key flags of the real executable")
struct TokenKeyCommandLineTests {
    /// The private key of `kind` in `private/<kid>.pem` and its public key in `public/<kid>.pem`.
    static func keyFiles(_ kind: TestKeyPair.Kind, kid: String, in directory: TemporaryDirectory) throws -> (String, String) {
        let pair = try TestKeyPair.of(kind)
        var paths: [String] = []
        for (folder, pem) in [("private", pair.privatePEM), ("public", pair.publicPEM)] {
            try FileManager.default.createDirectory(atPath: directory.path(folder), withIntermediateDirectories: true)
            paths.append(directory.path("\(folder)/\(kid).pem"))
            try pem.write(toFile: paths[paths.count - 1], atomically: true, encoding: .utf8)
        }
        return (paths[0], paths[1])
    }

    @Test func aTokenFromCallgateTokenWithAPrivateKeyConnectsToAGatewayWithItsPublicKey() async throws {
        let directory = try TemporaryDirectory()
        let (rsaPrivate, rsaPublic) = try Self.keyFiles(.rsa, kid: "backend-2026", in: directory)
        let (edPrivate, edPublic) = try Self.keyFiles(.ed25519, kid: "edge", in: directory)
        let gateway = try GatewayProcess(
            arguments: ["--database", directory.path("calls.sqlite"), "--jwt-public-key", rsaPublic],
            environment: ["CALLGATE_JWT_PUBLIC_KEY": "/ignored/when/the/flag/is/given.pem"])
        let fromVariable = try GatewayProcess(
            arguments: ["--database", directory.path("other.sqlite")], environment: ["CALLGATE_JWT_PUBLIC_KEY": "\(rsaPublic),\(edPublic)"])
        defer {
            for process in [gateway, fromVariable] { _ = process.terminate() }
        }
        let loop = try ClientLoop()
        defer { loop.stop() }
        for (process, key) in [(gateway, rsaPrivate), (fromVariable, rsaPrivate), (fromVariable, edPrivate)] {
            let minted = try await CommandRun.run([GatewayProcess.executable.path, "token", "--uid", "alice", "--private-key", key])
            #expect(minted.exitCode == 0, "\(minted)")
            let client = try await CallGateClient.open(host: "127.0.0.1", port: process.port, loop: loop)
            let connected = try await client.connect(token: minted.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(connected.user.uid == "alice")
            await client.close()
        }
        let devToken = try await adminRequest(port: gateway.port, "POST", "/dev/token", json: #"{"uid":"alice"}"#, key: nil)
        #expect(devToken.0 == 404, "a gateway with public keys mints no development tokens")

        let renamed = try await CommandRun.run([
            GatewayProcess.executable.path, "token", "--uid", "alice", "--private-key", rsaPrivate, "--kid", "other",
        ])
        let client = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        await expectError(.authError) {
            try await client.connect(token: renamed.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test func serveWithOnlyPublicKeysPrintsNoSecretAndNoTokenCommand() async throws {
        let directory = try TemporaryDirectory()
        let (_, ecPublic) = try Self.keyFiles(.ec, kid: "ec", in: directory)
        let serve = try ChildProcess("callgate", [
            "serve", "--port", "0", "--database", directory.path("calls.sqlite"), "--jwt-public-key", ecPublic,
        ])
        #expect(await serve.waitForOutput("No --admin-key given"), "the last line of the welcome")
        #expect(serve.standardOutput.contains("paste a token to sign in"))
        #expect(!serve.standardOutput.contains("--jwt-secret"), "\(serve.standardOutput)")
        // `serve` catches SIGINT only once it printed the welcome and went on to wait for it.
        try await Task.sleep(for: .milliseconds(500))
        serve.interrupt()
        #expect(await serve.exitStatus() == 0)
    }

    @Test func serveRefusesKeysItCannotUseSayingWhichAndWhy() async throws {
        let directory = try TemporaryDirectory()
        let (ecPrivate, ecPublic) = try Self.keyFiles(.ec, kid: "ec", in: directory)
        let sqlite = ["--database", directory.path("calls.sqlite")]
        let cluster = ["--database", "postgres://callgate@127.0.0.1:1/none", "--cluster", "redis://127.0.0.1:6379", "--node-id", "a", "--cluster-secret", String(repeating: "s", count: 32)]
        for (arguments, environment, reason) in [
            (sqlite + ["--jwt-public-key", ecPrivate], [:], "--jwt-public-key \(ecPrivate): holds a private key"),
            (sqlite + ["--jwt-public-key", directory.path("missing.pem")], [:], "cannot read the file"),
            (sqlite, ["CALLGATE_JWT_JWKS_FILE": ecPublic], "--jwt-jwks-file \(ecPublic): not a JWKS"),
            (sqlite + ["--jwt-jwks-url", "http://keys.example.com/jwks.json"], [:], "--jwt-jwks-url: must be https://"),
            (sqlite + ["--jwt-jwks-url", "https://keys.example.com/jwks.json", "--jwt-jwks-refresh", "5"], [:],
             "--jwt-jwks-refresh must be 10 to 86400"),
            (sqlite, ["CALLGATE_JWT_JWKS_COOLDOWN": "soon"], "CALLGATE_JWT_JWKS_COOLDOWN must be an integer"),
            (cluster, [:], "cluster mode needs --jwt-secret (or CALLGATE_JWT_SECRET, or jwt-secret in the config file), the same on every node, or public keys"),
            (cluster + ["--jwt-public-key", ecPublic], [:], "cannot open the database"),
        ] as [([String], [String: String], String)] {
            let run = try await CommandRun.run(
                [GatewayProcess.executable.path, "serve", "--port", "0"] + arguments,
                environment: environment, timeoutSeconds: 20)
            #expect(run.exitCode != 0 && run.exitCode != 124, "\(arguments)")
            #expect(run.output.contains(reason), "\(arguments) \(environment): \(run)")
        }
    }

    @Test func callgateTokenRefusesWhatCannotSign() async throws {
        let directory = try TemporaryDirectory()
        let (ecPrivate, ecPublic) = try Self.keyFiles(.ec, kid: "ec", in: directory)
        for (arguments, reason) in [
            (["--private-key", ecPublic], "not an RSA (2048 bits or more), EC P-256 or Ed25519 private key"),
            (["--private-key", ecPrivate, "--jwt-secret", "s"], "not both"),
            (["--jwt-secret", "s", "--kid", "k"], "--kid goes with --private-key"),
            (["--private-key", directory.path("missing.pem")], "cannot read"),
        ] {
            let run = try await CommandRun.run([GatewayProcess.executable.path, "token", "--uid", "alice"] + arguments)
            #expect(run.exitCode != 0, "\(arguments)")
            #expect(run.output.contains(reason), "\(arguments): \(run)")
        }
    }
}
