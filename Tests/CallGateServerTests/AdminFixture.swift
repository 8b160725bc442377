import CallGateCore
import CallGateServer
import Foundation
import Testing

/// A router over an in-memory store, and helpers to call it and read its JSON.
struct AdminFixture {
    static let adminKey = "admin-key-0123456789"
    static let secret = "router-test-secret-0123456789abcdef"

    let store: InMemoryGroupStore
    let router: AdminRouter

    init(groups: [GroupRecord] = [], adminKey: String = adminKey) async throws {
        store = InMemoryGroupStore(groups)
        router = AdminRouter(
            groups: store, adminKey: adminKey, tokens: try await TokenService(secret: Self.secret), allowsPrivateWebhooks: false)
    }

    /// A request with the right key unless `authorization` says otherwise (nil: no header).
    static func request(
        _ method: HTTPMethod, _ path: String, json: String? = nil,
        authorization: String? = "Bearer \(adminKey)"
    ) -> HTTPRequest {
        var headers: [String: String] = [:]
        if let authorization { headers["Authorization"] = authorization }
        return LWSTarget.request(method, path, headers: headers, body: Array((json ?? "").utf8))
    }

    /// The response for a synchronous route; records an issue for the asynchronous ones.
    func respond(_ request: HTTPRequest, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponse {
        switch router.route(request) {
        case .respond(let response):
            return response
        case .mintToken(let tokenRequest):
            Issue.record("expected a response, got mintToken(\(tokenRequest))", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        case .attachRecording(let sessionId, let rid, _, _):
            Issue.record("expected a response, got attachRecording(\(sessionId), \(rid))", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        case .webhooks(let webhookRequest):
            Issue.record("expected a response, got webhooks(\(webhookRequest))", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        case .callControl(let control):
            Issue.record("expected a response, got callControl(\(control))", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        case .drain(let begin):
            Issue.record("expected a response, got drain(begin: \(begin))", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        }
    }

    func respond(
        _ method: HTTPMethod, _ path: String, json: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HTTPResponse {
        respond(Self.request(method, path, json: json), sourceLocation: sourceLocation)
    }

    /// The JSON body decoded as `type`, after checking the content type.
    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        #expect(response.contentType == "application/json")
        return try JSONDecoder().decode(type, from: Data(response.body))
    }

    /// Checks an error response: status, content type, code, and that the message starts with `prefix`.
    static func expectError(
        _ response: HTTPResponse, _ status: Int, _ code: HTTPErrorCode, _ prefix: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.contentType == "application/json", sourceLocation: sourceLocation)
        guard let body = try? JSONDecoder().decode(HTTPErrorBody.self, from: Data(response.body)) else {
            Issue.record("not an error body: \(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
            return
        }
        #expect(body.error.code == code, sourceLocation: sourceLocation)
        #expect(body.error.message.hasPrefix(prefix), "message: \(body.error.message)", sourceLocation: sourceLocation)
    }
}
