import CallGateProtocol
import CallGateServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CORS on the call log API over real HTTP: preflights and the headers of real answers, by the
/// `--allowed-origin` list (empty: every origin), and none of it on the admin API.
@Suite("CORS on the call log API")
struct CallLogCORSTests {
    static let app = "https://app.example.com"
    static let other = "https://evil.example.com"

    /// One HTTP answer: its status, its headers and its body.
    struct Answer {
        let status: Int
        let response: HTTPURLResponse?
        let body: Data

        /// The header called `name` (case-insensitive), nil when absent.
        func header(_ name: String) -> String? {
            response?.value(forHTTPHeaderField: name)
        }

        /// The `error.code` of an error body.
        var errorCode: HTTPErrorCode? {
            (try? JSONDecoder().decode(HTTPErrorBody.self, from: body))?.error.code
        }
    }

    @Test func aPreflightFromAnAllowedOriginSaysWhatThePageMaySend() async throws {
        let gateway = try await TestGateway { $0.allowedOrigins = [Self.app] }
        defer { gateway.shutdown() }
        for path in ["/v3.0/calls", "/v3.0/calls/some-session"] {
            let answer = try await Self.send("OPTIONS", path, to: gateway, headers: Self.preflight(from: Self.app))
            #expect(answer.status == 204, "\(path)")
            #expect(answer.header("Access-Control-Allow-Origin") == Self.app, "\(path)")
            #expect(answer.header("Access-Control-Allow-Methods") == "GET", "\(path)")
            #expect(answer.header("Access-Control-Allow-Headers") == "Authorization, authToken, Content-Type", "\(path)")
            #expect(answer.header("Access-Control-Max-Age") == "600", "\(path)")
            #expect(answer.header("Vary") == "Origin", "\(path)")
            #expect(answer.header("Access-Control-Allow-Credentials") == nil, "\(path)")
            #expect(answer.body.isEmpty, "\(path)")
        }
    }

    @Test func aPreflightFromAnOriginNotAllowedIs403WithoutCORSHeaders() async throws {
        let gateway = try await TestGateway { $0.allowedOrigins = [Self.app] }
        defer { gateway.shutdown() }
        for origin in [Self.other, "null", "http://app.example.com", "https://app.example.com:8443"] {
            let answer = try await Self.send("OPTIONS", "/v3.0/calls", to: gateway, headers: Self.preflight(from: origin))
            #expect(answer.status == 403, "\(origin)")
            #expect(answer.errorCode == .originNotAllowed, "\(origin)")
            #expect(answer.header("Access-Control-Allow-Origin") == nil, "\(origin)")
            #expect(answer.header("Access-Control-Allow-Methods") == nil, "\(origin)")
        }
    }

    @Test func withoutAllowedOriginsEveryOriginIsReflectedButNothingThatIsNotAnOrigin() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        for origin in [Self.other, "http://127.0.0.1:5173", "null"] {
            let answer = try await Self.send("OPTIONS", "/v3.0/calls", to: gateway, headers: Self.preflight(from: origin))
            #expect(answer.status == 204, "\(origin)")
            #expect(answer.header("Access-Control-Allow-Origin") == origin, "\(origin)")
        }
        for origin in ["https://" + String(repeating: "a", count: 300) + ".example", "https://a b.example"] {
            let answer = try await Self.send("OPTIONS", "/v3.0/calls", to: gateway, headers: Self.preflight(from: origin))
            #expect(answer.status == 403, "\(origin.prefix(20))")
            #expect(answer.header("Access-Control-Allow-Origin") == nil, "\(origin.prefix(20))")
        }
    }

    @Test func realAnswersCarryTheOriginOnlyWhenItIsAllowedErrorsIncluded() async throws {
        let gateway = try await TestGateway { $0.allowedOrigins = [Self.app] }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let call = try await alice.initiateCall(to: "bob")
        try await gateway.awaitLogged(call.sessionId, for: "alice")
        let bearer = "Bearer \(try await gateway.token("alice"))"

        let allowed = try await Self.send("GET", "/v3.0/calls", to: gateway, headers: ["Origin": Self.app, "Authorization": bearer])
        #expect(allowed.status == 200)
        #expect(allowed.header("Access-Control-Allow-Origin") == Self.app)
        #expect(allowed.header("Vary") == "Origin")
        #expect(try JSONDecoder().decode(CallLogListBody.self, from: allowed.body).data.map(\.sessionId) == [call.sessionId])

        let detail = try await Self.send(
            "GET", "/v3.0/calls/\(call.sessionId)", to: gateway, headers: ["Origin": Self.app, "Authorization": bearer])
        #expect(detail.status == 200)
        #expect(detail.header("Access-Control-Allow-Origin") == Self.app)

        // Errors too, so that the page can read why: no token, a refused token, no such call.
        let errors = [
            ("/v3.0/calls", ["Origin": Self.app], 401),
            ("/v3.0/calls", ["Origin": Self.app, "Authorization": "Bearer not-a-token"], 401),
            ("/v3.0/calls?perPage=0", ["Origin": Self.app, "Authorization": bearer], 400),
            ("/v3.0/calls/no-such-call", ["Origin": Self.app, "Authorization": bearer], 404),
        ]
        for (path, headers, status) in errors {
            let answer = try await Self.send("GET", path, to: gateway, headers: headers)
            #expect(answer.status == status, "\(path)")
            #expect(answer.header("Access-Control-Allow-Origin") == Self.app, "\(path)")
        }

        let refused = try await Self.send("GET", "/v3.0/calls", to: gateway, headers: ["Origin": Self.other, "Authorization": bearer])
        #expect(refused.status == 200)
        #expect(refused.header("Access-Control-Allow-Origin") == nil)
        #expect(refused.header("Vary") == "Origin")
        let withoutOrigin = try await Self.send("GET", "/v3.0/calls", to: gateway, headers: ["Authorization": bearer])
        #expect(withoutOrigin.status == 200)
        #expect(withoutOrigin.header("Access-Control-Allow-Origin") == nil)

        // OPTIONS without Origin is no preflight: the method is not allowed, as before.
        let options = try await Self.send("OPTIONS", "/v3.0/calls", to: gateway, headers: [:])
        #expect(options.status == 405)
        #expect(options.header("Allow") == "GET")
    }

    @Test func theAdminAPIAndTheOtherRoutesHaveNoCORS() async throws {
        let gateway = try await TestGateway { $0.allowedOrigins = [Self.app] }
        defer { gateway.shutdown() }
        let key = "Bearer \(TestGateway.adminKey)"
        let requests: [(String, String, [String: String])] = [
            ("OPTIONS", "/v1/groups/team", Self.preflight(from: Self.app)),
            ("OPTIONS", "/v1/groups/team", Self.preflight(from: Self.app).merging(["Authorization": key]) { $1 }),
            ("GET", "/v1/groups/team", ["Origin": Self.app, "Authorization": key]),
            ("OPTIONS", "/healthz", Self.preflight(from: Self.app)),
            ("GET", "/healthz", ["Origin": Self.app]),
            ("GET", "/callgate.js", ["Origin": Self.app]),
        ]
        for (method, path, headers) in requests {
            let answer = try await Self.send(method, path, to: gateway, headers: headers)
            #expect(answer.status != 204 && answer.status != 0, "\(method) \(path): \(answer.status)")
            #expect(answer.header("Access-Control-Allow-Origin") == nil, "\(method) \(path)")
            #expect(answer.header("Access-Control-Allow-Methods") == nil, "\(method) \(path)")
        }
    }

    /// The headers of a browser's preflight for `GET` with `Authorization` from `origin`.
    private static func preflight(from origin: String) -> [String: String] {
        ["Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"]
    }

    /// Sends `method path` with `headers`, past any cache.
    private static func send(_ method: String, _ path: String, to gateway: TestGateway, headers: [String: String]) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(gateway.port)\(path)")!)
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? 0, response: http, body: data)
    }
}
