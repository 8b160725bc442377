import CallGateProtocol
import CallGateServer
import Foundation
import Testing

@Suite struct AdminTokenRouteTests {
    /// The token request the router hands back, or nil after recording an issue.
    static func tokenRequest(_ admin: AdminFixture, json: String) -> TokenRequest? {
        switch admin.router.route(AdminFixture.request(.post, "/v1/tokens", json: json)) {
        case .mintToken(let request):
            return request
        case .respond(let response):
            Issue.record("expected mintToken, got \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            return nil
        case .attachRecording(let sessionId, let rid, _, _):
            Issue.record("expected mintToken, got attachRecording(\(sessionId), \(rid))")
            return nil
        case .webhooks(let webhookRequest):
            Issue.record("expected mintToken, got webhooks(\(webhookRequest))")
            return nil
        case .callControl(let control):
            Issue.record("expected mintToken, got callControl(\(control))")
            return nil
        case .drain(let begin):
            Issue.record("expected mintToken, got drain(begin: \(begin))")
            return nil
        }
    }

    @Test func tokenRouteDefaultsNameAndTTL() async throws {
        let admin = try await AdminFixture()
        let request = try #require(Self.tokenRequest(admin, json: #"{"uid":"alice"}"#))
        #expect(request.user == User(uid: "alice", name: "alice"))
        #expect(request.ttl == 86_400)
    }

    @Test func tokenRouteTakesEveryField() async throws {
        let admin = try await AdminFixture()
        let json = #"{"uid":"alice","name":"Alice","avatar":"https://example.com/a.png","ttl":2592000,"extra":[1]}"#
        let request = try #require(Self.tokenRequest(admin, json: json))
        #expect(request.user == User(uid: "alice", name: "Alice", avatar: "https://example.com/a.png"))
        #expect(request.ttl == 2_592_000)
        #expect(Self.tokenRequest(admin, json: #"{"uid":"alice","ttl":1}"#)?.ttl == 1)
        #expect(Self.tokenRequest(admin, json: #"{"uid":"alice","ttl":60.0}"#)?.ttl == 60)
        let nulls = try #require(Self.tokenRequest(admin, json: #"{"uid":"alice","name":null,"avatar":null,"ttl":null}"#))
        #expect(nulls == (try TokenRequest(uid: "alice")))
    }

    @Test func tokenResponseCarriesAVerifiableToken() async throws {
        let admin = try await AdminFixture()
        let request = try #require(Self.tokenRequest(admin, json: #"{"uid":"alice","name":"Alice","ttl":120}"#))
        let now = Date()
        let response = await AdminRouter.tokenResponse(for: request, using: admin.router.tokens, now: now)
        #expect(response.status == 200)
        let minted = try AdminFixture.decode(MintedToken.self, response)
        #expect(minted.expiresAt == Int64(now.timeIntervalSince1970.rounded(.down)) + 120)
        #expect(await admin.router.tokens.verify(minted.token) == .success(User(uid: "alice", name: "Alice")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(Set(object.keys) == ["token", "expiresAt"])
    }
}
