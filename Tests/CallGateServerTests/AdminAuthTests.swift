import CallGateServer
import Testing

@Suite struct AdminAuthTests {
    /// Every /v1 route, including one that does not exist: without the key nothing is revealed.
    static let routes: [(HTTPMethod, String)] = [
        (.put, "/v1/groups/team"), (.get, "/v1/groups/team"), (.delete, "/v1/groups/team"),
        (.post, "/v1/groups/team/members"), (.delete, "/v1/groups/team/members/alice"),
        (.post, "/v1/tokens"), (.get, "/v1/no/such/route"), (.other("PATCH"), "/v1/groups/team"),
    ]

    static let wrongAuthorizations: [String?] = [
        nil, "", "Bearer", "Bearer ", "Bearer wrong", "Basic \(AdminFixture.adminKey)",
        "Bearer \(AdminFixture.adminKey)x", "Bearer \(AdminFixture.adminKey.dropLast())",
        AdminFixture.adminKey, "Bearer\(AdminFixture.adminKey)",
    ]

    @Test(arguments: routes)
    func missingOrWrongKeyIs401(method: HTTPMethod, path: String) async throws {
        let admin = try await AdminFixture()
        for authorization in Self.wrongAuthorizations {
            let response = admin.respond(AdminFixture.request(method, path, json: "{}", authorization: authorization))
            AdminFixture.expectError(response, 401, .unauthorized, "a valid 'Authorization: Bearer <admin key>' header")
            #expect(response.header("WWW-Authenticate") == "Bearer")
        }
    }

    @Test func schemeIsCaseInsensitiveAndHeaderNameToo() async throws {
        let admin = try await AdminFixture(groups: [AdminGroupRouteTests.team])
        for (name, value) in [("authorization", "bearer \(AdminFixture.adminKey)"), ("AUTHORIZATION", "BEARER  \(AdminFixture.adminKey) ")] {
            let request = HTTPRequest(method: .get, path: "/v1/groups/team", headers: [name: value])
            #expect(admin.respond(request).status == 200)
        }
    }

    @Test func emptyAdminKeyDisablesTheAdminRoutes() async throws {
        let admin = try await AdminFixture(adminKey: "")
        for authorization in ["Bearer ", "Bearer", "Bearer  "] {
            AdminFixture.expectError(
                admin.respond(AdminFixture.request(.get, "/v1/groups/team", authorization: authorization)), 401, .unauthorized)
        }
        #expect(admin.respond(AdminFixture.request(.get, "/healthz", authorization: nil)).status == 200)
    }
}
