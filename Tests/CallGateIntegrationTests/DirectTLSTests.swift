import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import LWS
import Testing
import TestSupport

/// `callgate serve --tls-cert --tls-key`: the real executable serving wss:// and https:// with a
/// self-signed certificate from tools/make-cert.sh, checked with our client, curl and openssl.
@Suite("Direct TLS")
struct DirectTLSTests {
    static let secret = "tls-test-secret"

    /// A TLS gateway on a free port with a fresh certificate and database.
    struct TLSGateway {
        let certificate: TestCertificate
        let process: GatewayProcess

        init(environment: [String: String] = [:]) async throws {
            certificate = try await TestCertificate()
            process = try GatewayProcess(
                arguments: [
                    "--tls-cert", certificate.certificateFile, "--tls-key", certificate.keyFile,
                    "--database", certificate.directory.path("callgate.sqlite"), "--jwt-secret", DirectTLSTests.secret,
                ],
                environment: environment)
        }
    }

    @Test func aCallRingsAndEndsOverWSSWithTheCertificateVerified() async throws {
        let gateway = try await TLSGateway()
        let loop = try ClientLoop(tls: ClientTLSTrust(caFile: gateway.certificate.certificateFile))
        defer { loop.stop() }
        let tokens = try await TokenService(secret: Self.secret)
        var devices: [CallGateClient] = []
        for uid in ["alice", "bob"] {
            let client = try await CallGateClient.open(host: "127.0.0.1", port: gateway.process.port, loop: loop, tls: .verified)
            let token = try await tokens.mint(user: User(uid: uid, name: uid.capitalized), ttl: 600).token
            _ = try await client.connect(token: token)
            devices.append(client)
        }
        let ended = try await devices[0].ringAcceptAndEnd(devices[1], calleeUID: "bob")
        #expect(ended.callStatus == .ended)
    }

    @Test func aCertificateNoTrustedCAVouchesForIsRefusedUnlessSelfSignedIsAllowed() async throws {
        let gateway = try await TLSGateway()
        let loop = try ClientLoop(tls: ClientTLSTrust())
        defer { loop.stop() }
        await #expect(throws: CallGateClientError.self) {
            _ = try await CallGateClient.open(host: "127.0.0.1", port: gateway.process.port, loop: loop, tls: .verified)
        }
        let client = try await CallGateClient.open(
            host: "127.0.0.1", port: gateway.process.port, loop: loop, tls: ClientTLS(allowSelfSigned: true))
        let tokens = try await TokenService(secret: Self.secret)
        let result = try await client.connect(token: try await tokens.mint(user: User(uid: "carol", name: "Carol"), ttl: 600).token)
        #expect(result.user.uid == "carol")
    }

    @Test func httpsServesHealthAndPlainHTTPGetsNoAnswer() async throws {
        let gateway = try await TLSGateway()
        let port = gateway.process.port
        let https = try await CommandRun.run([
            "curl", "-sS", "--cacert", gateway.certificate.certificateFile, "-w", "\\n%{http_code} %{http_version}",
            "https://127.0.0.1:\(port)/healthz",
        ])
        #expect(https.exitCode == 0, "\(https)")
        #expect(https.output.contains(#""status":"ok""#), "\(https)")
        #expect(https.output.hasSuffix("200 1.1"), "\(https)")
        let plain = try await CommandRun.run(["curl", "-sS", "-w", "\\n%{http_code}", "http://127.0.0.1:\(port)/healthz"])
        #expect(plain.exitCode != 0, "\(plain)")
        #expect(!plain.output.contains("status"), "\(plain)")
    }

    /// Both the gateway and openssl s_client run with an OpenSSL configuration that allows
    /// TLS 1.0 at security level 0, so only the gateway's own options can refuse the old versions.
    @Test func onlyTLS12And13AreAcceptedEvenWhenOpenSSLWouldAllowOlder() async throws {
        let settings = try TemporaryDirectory()
        let permissive = settings.path("permissive-openssl.cnf")
        try """
            openssl_conf = settings
            [settings]
            ssl_conf = ssl
            [ssl]
            system_default = defaults
            [defaults]
            MinProtocol = TLSv1
            CipherString = DEFAULT@SECLEVEL=0
            """.write(toFile: permissive, atomically: true, encoding: .utf8)
        let environment = ["OPENSSL_CONF": permissive]
        let gateway = try await TLSGateway(environment: environment)
        func handshake(_ version: String) async throws -> CommandRun {
            try await CommandRun.run(
                [
                    "openssl", "s_client", "-\(version)", "-connect", "127.0.0.1:\(gateway.process.port)",
                    "-CAfile", gateway.certificate.certificateFile, "-verify_return_error",
                ],
                environment: environment, timeoutSeconds: 20)
        }
        for (version, name) in [("tls1_2", "TLSv1.2"), ("tls1_3", "TLSv1.3")] {
            let run = try await handshake(version)
            #expect(run.exitCode == 0, "\(version): \(run)")
            #expect(run.output.contains("New, \(name), Cipher is"), "\(version): \(run)")
        }
        for version in ["tls1", "tls1_1"] {
            let run = try await handshake(version)
            #expect(run.exitCode != 0, "\(version): \(run)")
            #expect(run.output.contains("alert protocol version"), "\(version) was not refused by the server: \(run)")
        }
    }

    @Test func serveRefusesHalfATLSSetUpAndUnreadableFiles() async throws {
        let certificate = try await TestCertificate()
        let executable = GatewayProcess.executable.path
        let database = certificate.directory.path("callgate.sqlite")
        let withoutKey = try await CommandRun.run([
            executable, "serve", "--port", "0", "--database", database, "--tls-cert", certificate.certificateFile,
        ])
        #expect(withoutKey.exitCode != 0)
        #expect(withoutKey.output.contains("--tls-cert and --tls-key"), "\(withoutKey)")
        let missing = certificate.directory.path("missing.pem")
        let unreadable = try await CommandRun.run([
            executable, "serve", "--port", "0", "--database", database, "--tls-cert", certificate.certificateFile,
            "--tls-key", missing,
        ])
        #expect(unreadable.exitCode != 0)
        #expect(unreadable.output.contains("--tls-key: cannot read \(missing)"), "\(unreadable)")
        let badProxy = try await CommandRun.run([
            executable, "serve", "--port", "0", "--database", database, "--trusted-proxy", "10.0.0.0/33",
        ])
        #expect(badProxy.exitCode != 0)
        #expect(badProxy.output.contains("10.0.0.0/33"), "\(badProxy)")
    }
}
