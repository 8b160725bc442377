import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import LWS
import Testing
import TestSupport

/// deploy/nginx/callgate.conf in a real nginx in front of the real executable (started with
/// `--trusted-proxy 127.0.0.1/32`), used by our client over wss and by curl over https.
/// Clients bind their own 127.0.0.x source addresses, so the address the gateway logs shows
/// whether it came from X-Forwarded-For (nginx itself connects from 127.0.0.1).
@Suite("Reverse proxy (nginx)")
struct ReverseProxyTests {
    static let secret = "proxy-test-secret"

    /// A gateway and nginx in front of it, stopped with this value.
    final class Edge {
        let certificate: TestCertificate
        let gateway: GatewayProcess
        let nginx: NginxProxy
        let loop: ClientLoop
        let tokens: TokenService

        init(perIPLimit: Int = 100) async throws {
            certificate = try await TestCertificate()
            gateway = try GatewayProcess(arguments: [
                "--database", certificate.directory.path("callgate.sqlite"), "--jwt-secret", ReverseProxyTests.secret,
                "--trusted-proxy", "127.0.0.1/32", "--log-level", "debug",
            ])
            nginx = try await NginxProxy(upstreamPort: gateway.port, certificate: certificate, perIPLimit: perIPLimit)
            loop = try ClientLoop(tls: ClientTLSTrust(caFile: certificate.certificateFile))
            tokens = try await TokenService(secret: ReverseProxyTests.secret)
        }

        func token(_ uid: String) async throws -> String {
            try await tokens.mint(user: User(uid: uid, name: uid.capitalized), ttl: 600).token
        }

        /// A socket through nginx over wss, from `source`.
        func socket(from source: String) async throws -> CallGateClient {
            try await CallGateClient.open(host: "127.0.0.1", port: nginx.httpsPort, loop: loop, sourceAddress: source, tls: .verified)
        }

        /// A WebSocket upgrade made by curl from `source` with a forged X-Forwarded-For, to `url`;
        /// curl holds the socket until `--max-time` ends it, which is why its exit status is ignored.
        func forgedUpgrade(from source: String, to url: String) async throws -> CommandRun {
            try await CommandRun.run([
                "curl", "-sS", "-i", "--http1.1", "--max-time", "2", "--cacert", certificate.certificateFile,
                "--interface", source, "-H", "Connection: Upgrade", "-H", "Upgrade: websocket",
                "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "-H", "Sec-WebSocket-Protocol: \(WireEndpoint.subprotocol)", "-H", "X-Forwarded-For: 203.0.113.66", url,
            ])
        }

        func stop() {
            loop.stop()
            nginx.stop()
            _ = gateway.terminate()
        }
    }

    @Test func aCallAndItsLogGoThroughNginxAndTheGatewaySeesTheRealClientAddress() async throws {
        let edge = try await Edge()
        defer { edge.stop() }
        let aliceToken = try await edge.token("alice")
        let bobToken = try await edge.token("bob")
        let alice = try await edge.socket(from: "127.0.0.7")
        _ = try await alice.connect(token: aliceToken)
        let bob = try await edge.socket(from: "127.0.0.8")
        _ = try await bob.connect(token: bobToken)
        let ended = try await alice.ringAcceptAndEnd(bob, calleeUID: "bob")

        #expect(await edge.gateway.log.line(containing: ["connected", "uid=alice", "client=127.0.0.7"]) != nil, "\(edge.gateway.log.text)")
        #expect(await edge.gateway.log.line(containing: ["connected", "uid=bob", "client=127.0.0.8"]) != nil, "\(edge.gateway.log.text)")

        let query = try await CommandRun.run([
            "curl", "-sS", "--fail-with-body", "--cacert", edge.certificate.certificateFile, "-H", "authToken: \(bobToken)",
            "https://127.0.0.1:\(edge.nginx.httpsPort)/v3.0/calls?perPage=5",
        ])
        #expect(query.exitCode == 0, "\(query)")
        let page = try JSONDecoder().decode(CallLogListBody.self, from: Data(query.output.utf8))
        #expect(page.data.map(\.sessionId) == [ended.sessionId])

        await bob.close()
        #expect(await edge.gateway.log.line(containing: ["disconnected", "uid=bob", "client=127.0.0.8"]) != nil)

        let nginx = edge.nginx
        #expect(await nginx.accessLogLine(containing: ["127.0.0.8 [", "\"GET /ws HTTP/1.1\" 101"]) != nil, "\(nginx.accessLog)")
        #expect(await nginx.accessLogLine(containing: ["\"GET /v3.0/calls HTTP/1.1\" 200"]) != nil, "\(nginx.accessLog)")
        let accessLog = nginx.accessLog
        #expect(!accessLog.contains("perPage"), "the query string was logged: \(accessLog)")
        for token in [aliceToken, bobToken] {
            #expect(!accessLog.contains(token), "a token was logged: \(accessLog)")
            #expect(!edge.gateway.log.text.contains(token), "the gateway logged a token")
        }
    }

    /// A client that sends its own X-Forwarded-For, through nginx and straight to the gateway:
    /// either way the gateway takes the address the connection really came from.
    @Test func aForgedForwardedForNeverBecomesTheClientAddress() async throws {
        let edge = try await Edge()
        defer { edge.stop() }
        let throughProxy = try await edge.forgedUpgrade(from: "127.0.0.11", to: "https://127.0.0.1:\(edge.nginx.httpsPort)/ws")
        #expect(throughProxy.output.contains("101 Switching Protocols"), "\(throughProxy)")
        #expect(await edge.gateway.log.line(containing: ["socket opened", "client=127.0.0.11"]) != nil, "\(edge.gateway.log.text)")

        let direct = try await edge.forgedUpgrade(from: "127.0.0.12", to: "http://127.0.0.1:\(edge.gateway.port)/ws")
        #expect(direct.output.contains("101 Switching Protocols"), "\(direct)")
        #expect(await edge.gateway.log.line(containing: ["socket opened", "client=127.0.0.12"]) != nil, "\(edge.gateway.log.text)")

        #expect(!edge.gateway.log.text.contains("203.0.113.66"), "\(edge.gateway.log.text)")
    }

    @Test func plainHTTPIsRedirectedMonitoringIsHiddenAndConnectionsPerClientAddressAreCapped() async throws {
        let edge = try await Edge(perIPLimit: 2)
        defer { edge.stop() }
        let redirect = try await CommandRun.run([
            "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
            "http://127.0.0.1:\(edge.nginx.httpPort)/healthz",
        ])
        #expect(redirect.output == "301 https://127.0.0.1/healthz", "\(redirect)")
        for path in ["/metrics", "/readyz"] {
            let hidden = try await CommandRun.run([
                "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", edge.certificate.certificateFile,
                "https://127.0.0.1:\(edge.nginx.httpsPort)\(path)",
            ])
            #expect(hidden.output == "404", "nginx must not serve \(path) to the public: \(hidden)")
        }

        var open: [CallGateClient] = []
        for _ in 0..<2 {
            open.append(try await edge.socket(from: "127.0.0.9"))
        }
        await #expect(throws: CallGateClientError.self) { _ = try await edge.socket(from: "127.0.0.9") }
        let other = try await edge.socket(from: "127.0.0.10")
        _ = try await other.connect(token: try await edge.token("dave"))
        #expect(
            await edge.nginx.accessLogLine(containing: ["127.0.0.9 [", "\"GET /ws HTTP/1.1\" 429"]) != nil,
            "\(edge.nginx.accessLog)")
        for client in open {
            await client.close()
        }
    }

    /// h2c is refused by the gateway itself (400 with the JSON error body, never 101) and never
    /// reaches it through nginx, which passes `Upgrade` on only when it is `websocket`: through
    /// nginx the request arrives as a plain GET, so nothing past nginx's locations speaks HTTP/2.
    @Test func h2cIsRefusedByTheGatewayAndNotForwardedByNginx() async throws {
        let edge = try await Edge()
        defer { edge.stop() }
        let h2c = [
            "-H", "Connection: Upgrade, HTTP2-Settings", "-H", "Upgrade: h2c", "-H", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
        ]
        for path in ["/ws", "/healthz", "/metrics"] {
            let direct = try await CommandRun.run(
                ["curl", "-sS", "-i", "--http1.1", "--max-time", "5"] + h2c + ["http://127.0.0.1:\(edge.gateway.port)\(path)"])
            #expect(direct.output.hasPrefix("HTTP/1.0 400") || direct.output.hasPrefix("HTTP/1.1 400"), "\(path): \(direct)")
            #expect(direct.output.contains(#""code":"ERR_BAD_REQUEST""#), "\(path): \(direct)")
            #expect(!direct.output.contains("101"), "\(path): \(direct)")
        }
        let attempt = try await CommandRun.run([
            "curl", "-sS", "-o", "/dev/null", "-w", "%{http_version} %{http_code}", "--http2", "--max-time", "5",
            "http://127.0.0.1:\(edge.gateway.port)/healthz",
        ])
        #expect(["1 400", "1.1 400"].contains(attempt.output), "curl's own h2c attempt must stay on HTTP/1: \(attempt)")
        for path in ["/ws", "/metrics"] {
            let proxied = try await CommandRun.run(
                ["curl", "-sS", "-i", "--http1.1", "--max-time", "5", "--cacert", edge.certificate.certificateFile] + h2c
                    + ["https://127.0.0.1:\(edge.nginx.httpsPort)\(path)"])
            #expect(!proxied.output.hasPrefix("HTTP/1.1 101"), "\(path): \(proxied)")
            #expect(!proxied.output.contains("PRI * HTTP/2.0"), "\(path): \(proxied)")
        }
        #expect(!edge.gateway.log.text.contains("h2"), "\(edge.gateway.log.text)")
    }
}
