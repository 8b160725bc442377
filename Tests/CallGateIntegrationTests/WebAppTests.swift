import CallGateProtocol
import CallGateServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// The web softphone demo's files and its development token route, on a real gateway.
/// (tools/web drives the page itself in headless Chromium.)
@Suite("Web softphone demo")
struct WebAppTests {
    @Test func thePageAndItsFilesAreServedWithTheirTypesAndNothingElseIs() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let expected = [
            ("/", "text/html; charset=utf-8", "<script type=\"module\" src=\"/app.js\">"),
            ("/index.html", "text/html; charset=utf-8", "CallGate softphone"),
            ("/app.js", "text/javascript; charset=utf-8", "import { CallGateClient } from \"./callgate.js\""),
            ("/callgate.js", "text/javascript; charset=utf-8", "export class CallGateClient"),
            ("/style.css", "text/css; charset=utf-8", "#history li.missed"),
        ]
        for (path, contentType, excerpt) in expected {
            let (status, headers, body) = try await Self.fetch(gateway.port, path)
            #expect(status == 200, "\(path)")
            #expect(headers["Content-Type"] == contentType, "\(path)")
            #expect(headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            #expect(String(decoding: body, as: UTF8.self).contains(excerpt), "\(path)")
        }
        for path in ["/nothing.js", "/%2e%2e/Package.swift", "/callgate.js/", "/WebApp/app.js"] {
            #expect(try await Self.fetch(gateway.port, path).status == 404, "\(path)")
        }
        let (status, headers, _) = try await Self.fetch(gateway.port, "/", method: "POST")
        #expect(status == 405 && headers["Allow"] == "GET")
    }

    @Test func thePolicyAllowsOnlyTheGatewayAndTheWebhookReceiversOrigin() async throws {
        let plain = try await TestGateway()
        defer { plain.shutdown() }
        #expect(try await Self.fetch(plain.port, "/").headers["Content-Security-Policy"]
            == "default-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'")

        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let hooked = try await TestGateway {
            $0.webhooks.url = "http://127.0.0.1:9/webhooks?app=demo"
            $0.webhooks.allowsPrivateNetworks = true
            $0.webhooks.secret = secret
        }
        defer { hooked.shutdown() }
        #expect(try await Self.fetch(hooked.port, "/app.js").headers["Content-Security-Policy"]
            == "default-src 'self'; connect-src 'self' ws: wss: http://127.0.0.1:9; frame-ancestors 'none'")
    }

    @Test func turnedOffThePageIsNotFound() async throws {
        let gateway = try await TestGateway { $0.servesWebApp = false }
        defer { gateway.shutdown() }
        for path in ["/", "/callgate.js"] {
            #expect(try await Self.fetch(gateway.port, path).status == 404)
        }
    }

    @Test func devTokensAreMintedOnlyWhenTurnedOnAndThenAdmitTheirUser() async throws {
        let configured = try await TestGateway()
        defer { configured.shutdown() }
        #expect(try await configured.admin("POST", "/dev/token", json: #"{"uid":"alice"}"#, key: nil).0 == 404)

        let development = try await TestGateway { $0.mintsDevTokens = true }
        defer { development.shutdown() }
        let (status, body) = try await development.admin("POST", "/dev/token", json: #"{"uid":"alice","name":"Alice"}"#, key: nil)
        #expect(status == 200)
        let minted = try JSONDecoder().decode(MintedTokenBody.self, from: body)
        let socket = try await development.socket()
        #expect(try await socket.connect(token: minted.token).user == User(uid: "alice", name: "Alice"))

        let (badStatus, badBody) = try await development.admin("POST", "/dev/token", json: #"{"uid":"a b"}"#, key: nil)
        #expect(badStatus == 400)
        #expect(String(decoding: badBody, as: UTF8.self).contains("uid: must be 1..100 characters"))
        #expect(try await development.admin("POST", "/dev/token", json: "{", key: nil).0 == 400)
        #expect(try await development.admin("GET", "/dev/token", key: nil).0 == 405)
    }

    @Test func serveTurnsDevTokensOnOnlyWithAGeneratedSecretAndTheFlagsTurnThePageOff() async throws {
        let directory = try TemporaryDirectory()
        let generated = try GatewayProcess(arguments: ["--database", directory.path("a.sqlite")])
        let given = try GatewayProcess(arguments: ["--database", directory.path("b.sqlite"), "--jwt-secret", "s", "--no-web-app"])
        let off = try GatewayProcess(arguments: ["--database", directory.path("c.sqlite")], environment: ["CALLGATE_WEB_APP": "off"])
        defer {
            for gateway in [generated, given, off] { _ = gateway.terminate() }
        }
        #expect(try await Self.post(generated.port, "/dev/token", #"{"uid":"alice"}"#) == 200)
        #expect(try await Self.fetch(generated.port, "/").status == 200)
        #expect(try await Self.post(given.port, "/dev/token", #"{"uid":"alice"}"#) == 404)
        #expect(try await Self.fetch(given.port, "/").status == 404)
        #expect(try await Self.fetch(off.port, "/").status == 404)

        let refused = try await CommandRun.run(
            [GatewayProcess.executable.path, "serve", "--port", "0", "--database", directory.path("d.sqlite")],
            environment: ["CALLGATE_WEB_APP": "maybe"], timeoutSeconds: 20)
        #expect(refused.exitCode != 0 && refused.exitCode != 124)
        #expect(refused.output.contains("CALLGATE_WEB_APP must be on or off, got 'maybe'"))
    }

    private struct MintedTokenBody: Decodable {
        let token: String
        let expiresAt: Int64
    }

    /// The status, the headers the tests look at (names matched case-insensitively) and the body.
    private static func fetch(_ port: Int, _ path: String, method: String = "GET") async throws -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for name in ["Content-Type", "X-Content-Type-Options", "Allow", "Content-Security-Policy"] {
            headers[name] = http?.value(forHTTPHeaderField: name)
        }
        return (http?.statusCode ?? 0, headers, data)
    }

    private static func post(_ port: Int, _ path: String, _ json: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(json.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
