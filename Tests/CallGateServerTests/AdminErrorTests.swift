import CallGateServer
import Testing

@Suite struct AdminErrorTests {
    @Test(arguments: [
        "", "/", "relative", "/healthz/", "/v2/groups/team", "/v1", "/v1/", "/v1/groups", "/v1/groups/",
        "/v1/groups/team/", "/v1/groups//members", "/v1/groups/team/members/", "/v1/groups/team/members/a/b",
        "//v1/groups/team", "/v1/tokens/", "/v1/groups/team/people", "/v1/groups/a%2Fb",
    ])
    func unknownRouteIs404(path: String) async throws {
        let admin = try await AdminFixture()
        AdminFixture.expectError(admin.respond(.get, path), 404, .notFound, "no route for this path")
    }

    @Test(arguments: [
        (HTTPMethod.other("PATCH"), "/v1/groups/team", "GET, PUT, DELETE"),
        (.post, "/v1/groups/team", "GET, PUT, DELETE"),
        (.get, "/v1/groups/team/members", "POST"),
        (.put, "/v1/groups/team/members/alice", "DELETE"),
        (.get, "/v1/tokens", "POST"),
        (.post, "/healthz", "GET"),
        (.other("get"), "/healthz", "GET"),
    ])
    func knownPathWithWrongMethodIs405WithAllow(method: HTTPMethod, path: String, allow: String) async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(AdminFixture.request(method, path))
        AdminFixture.expectError(response, 405, .methodNotAllowed, "method not allowed here; allowed: \(allow)")
        #expect(response.header("Allow") == allow)
    }

    @Test func bodyOver64KiBIs413() async throws {
        let admin = try await AdminFixture()
        let json = #"{"name":"T","members":[]}"#
        let atLimit = json + String(repeating: " ", count: AdminRouter.maxBodySize - json.utf8.count)
        #expect(admin.respond(.put, "/v1/groups/team", json: atLimit).status == 200)
        AdminFixture.expectError(
            admin.respond(.put, "/v1/groups/team", json: atLimit + " "), 413, .payloadTooLarge, "body: must be at most 65536 bytes")
        AdminFixture.expectError(
            admin.respond(.post, "/v1/tokens", json: atLimit + " "), 413, .payloadTooLarge)
    }

    static let longID = String(repeating: "a", count: 101)
    static let longName = String(repeating: "n", count: 257)

    @Test(arguments: [
        ("", "body: not valid JSON"),
        ("{", "body: not valid JSON"),
        ("\u{FF}", "body: not valid JSON"),
        ("[]", "body: expected object"),
        ("\"team\"", "body: expected object"),
        ("null", "body: expected object, found null"),
        (#"{"members":[]}"#, "name: required field is missing"),
        (#"{"name":"T"}"#, "members: required field is missing"),
        (#"{"name":5,"members":[]}"#, "name: expected string"),
        (#"{"name":null,"members":[]}"#, "name: expected string, found null"),
        (#"{"name":"","members":[]}"#, "name: must be 1..256 UTF-8 bytes"),
        (#"{"name":"\#(longName)","members":[]}"#, "name: must be 1..256 UTF-8 bytes"),
        (#"{"name":"T","icon":5,"members":[]}"#, "icon: expected string"),
        (#"{"name":"T","icon":"a\u0000b","members":[]}"#, "icon: must be 1..2048 UTF-8 bytes without control characters"),
        (#"{"name":"T","members":"alice"}"#, "members: expected array"),
        (#"{"name":"T","members":{"0":"alice"}}"#, "members: expected array"),
        (#"{"name":"T","members":["alice",7]}"#, "members[1]: expected string"),
        (#"{"name":"T","members":["alice","bad uid"]}"#, "members[1]: must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"),
        (#"{"name":"T","members":[""]}"#, "members[0]: must be 1..100"),
        (#"{"name":"T","members":["\#(longID)"]}"#, "members[0]: must be 1..100"),
    ])
    func invalidGroupBodyIs400(json: String, message: String) async throws {
        let admin = try await AdminFixture()
        AdminFixture.expectError(admin.respond(.put, "/v1/groups/team", json: json), 400, .badRequest, message)
        #expect(admin.store.group("team") == nil)
    }

    @Test(arguments: [
        ("/v1/groups/bad%20guid", "guid: must be 1..100"),
        ("/v1/groups/%FF", "guid: must be 1..100"),
        ("/v1/groups/team%2525", "guid: must be 1..100"),
        ("/v1/groups/caf%C3%A9", "guid: must be 1..100"),
        ("/v1/groups/\(longID)", "guid: must be 1..100"),
    ])
    func invalidGuidIs400OnEveryGroupRoute(path: String, message: String) async throws {
        let admin = try await AdminFixture()
        let valid = #"{"name":"T","members":[],"uids":[]}"#
        for (method, suffix) in [(HTTPMethod.get, ""), (.put, ""), (.delete, ""), (.post, "/members"), (.delete, "/members/alice")] {
            AdminFixture.expectError(admin.respond(method, path + suffix, json: valid), 400, .badRequest, message)
        }
    }

    @Test(arguments: [
        ("/v1/groups/team/members/bad%20uid", "uid: must be 1..100"),
        ("/v1/groups/team/members/\(longID)", "uid: must be 1..100"),
    ])
    func invalidMemberUidIs400(path: String, message: String) async throws {
        let admin = try await AdminFixture(groups: [AdminGroupRouteTests.team])
        AdminFixture.expectError(admin.respond(.delete, path), 400, .badRequest, message)
    }

    @Test(arguments: [
        ("", "body: not valid JSON"),
        ("{}", "uids: required field is missing"),
        (#"{"uids":"alice"}"#, "uids: expected array"),
        (#"{"uids":[true]}"#, "uids[0]: expected string"),
        (#"{"uids":["ok","no/slash"]}"#, "uids[1]: must be 1..100"),
    ])
    func invalidMembersBodyIs400(json: String, message: String) async throws {
        let admin = try await AdminFixture(groups: [AdminGroupRouteTests.team])
        AdminFixture.expectError(admin.respond(.post, "/v1/groups/team/members", json: json), 400, .badRequest, message)
        #expect(admin.store.group("team") == AdminGroupRouteTests.team)
    }

    @Test(arguments: [
        ("", "body: not valid JSON"),
        ("{}", "uid: required field is missing"),
        (#"{"uid":5}"#, "uid: expected string"),
        (#"{"uid":"a b"}"#, "uid: must be 1..100"),
        (#"{"uid":""}"#, "uid: must be 1..100"),
        (#"{"uid":"alice","name":""}"#, "name: must be 1..256 UTF-8 bytes"),
        (#"{"uid":"alice","name":["A"]}"#, "name: expected string"),
        (#"{"uid":"alice","avatar":3}"#, "avatar: expected string"),
        (#"{"uid":"alice","ttl":0}"#, "ttl: must be an integer number of seconds in 1..2592000"),
        (#"{"uid":"alice","ttl":-5}"#, "ttl: must be an integer number of seconds in 1..2592000"),
        (#"{"uid":"alice","ttl":2592001}"#, "ttl: must be an integer number of seconds in 1..2592000"),
        (#"{"uid":"alice","ttl":"60"}"#, "ttl: expected integer"),
        (#"{"uid":"alice","ttl":1.5}"#, "ttl: expected integer"),
        (#"{"uid":"alice","ttl":1e30}"#, "ttl: expected integer"),
        (#"{"uid":"alice","ttl":true}"#, "ttl: expected integer"),
    ])
    func invalidTokenBodyIs400(json: String, message: String) async throws {
        let admin = try await AdminFixture()
        AdminFixture.expectError(admin.respond(.post, "/v1/tokens", json: json), 400, .badRequest, message)
    }
}
