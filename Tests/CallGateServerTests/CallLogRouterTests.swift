import CallGateCore
import CallGateServer
import Testing

/// The call log API's routing: tokens, methods, paths and every parameter.
@Suite struct CallLogRouterTests {
    static func get(_ target: String, headers: [String: String] = ["authToken": "t0k"]) -> CallLogRoute {
        CallLogRouter.route(LWSTarget.request(.get, target, headers: headers))
    }

    /// The list request of a route, or nil after recording what came instead.
    static func list(_ target: String) -> CallLogListRequest? {
        switch get(target) {
        case .list(let token, let request):
            #expect(token == "t0k")
            return request
        case let other:
            Issue.record("expected a list route, got \(other)")
            return nil
        }
    }

    /// The status and message of a route that answers at once.
    static func answer(_ route: CallLogRoute) -> (Int, String)? {
        guard case .respond(let response) = route else { return nil }
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test func defaultsAreTheFirstPageOfThirty() {
        #expect(Self.list("/v3.0/calls") == CallLogListRequest())
    }

    @Test func everyFilterIsRead() {
        let request = Self.list(
            "/v3.0/calls?page=2&perPage=10&mode=meet&type=video&status=ended&direction=incoming&hasRecording=1&uid=bob&guid=team%3A1&appId=ignored")
        #expect(request == CallLogListRequest(
            filter: CallLogFilter(
                category: .meet, callType: .video, status: .ended, direction: .incoming, hasRecording: true,
                withUser: "bob", group: "team:1"),
            perPage: 10, position: .page(2)))
    }

    @Test func aCursorWinsOverPage() {
        #expect(Self.list("/v3.0/calls?page=3&cursor=o42")?.position == .cursor(.olderThan(42)))
        #expect(Self.list("/v3.0/calls?cursor=n7")?.position == .cursor(.newerThan(7)))
    }

    @Test(arguments: [
        ("page=0", "page"), ("page=x", "page"), ("perPage=101", "perPage"), ("perPage=0", "perPage"),
        ("mode=video", "mode"), ("type=call", "type"), ("status=missed", "status"), ("direction=up", "direction"),
        ("hasRecording=yes", "hasRecording"), ("uid=a%20b", "uid"), ("guid=", "guid"), ("cursor=abc", "cursor"),
        ("type=audio&type=video", "type"), ("uid", "uid"), ("uid=a%2526b", "uid"),
    ])
    func badParametersAre400NamingTheParameter(query: String, parameter: String) throws {
        let (status, body) = try #require(Self.answer(Self.get("/v3.0/calls?\(query)")))
        #expect(status == 400)
        #expect(body.contains("ERR_BAD_REQUEST"))
        #expect(body.contains("\"\(parameter):"))
    }

    @Test func theTokenComesFromAuthTokenOrBearer() {
        guard case .list(let token, _) = Self.get("/v3.0/calls", headers: ["Authorization": "Bearer abc"]) else {
            Issue.record("bearer token not read")
            return
        }
        #expect(token == "abc")
        for headers in [[:], ["Authorization": "Basic abc"], ["authToken": " "]] {
            #expect(Self.answer(Self.get("/v3.0/calls", headers: headers))?.0 == 401)
        }
    }

    @Test func detailsNameOneSession() throws {
        guard case .detail(_, let sessionId) = Self.get("/v3.0/calls/v1.call%3A9") else {
            Issue.record("detail route not found")
            return
        }
        #expect(sessionId == "v1.call:9")
        #expect(try #require(Self.answer(Self.get("/v3.0/calls/bad%20id"))).0 == 400)
        #expect(try #require(Self.answer(Self.get("/v3.0/calls/a/b"))).0 == 404)
        #expect(try #require(Self.answer(Self.get("/v3.0/calls/"))).0 == 404)
    }

    @Test func onlyGetIsAllowed() throws {
        let route = CallLogRouter.route(HTTPRequest(method: .post, path: "/v3.0/calls", headers: ["authToken": "t"]))
        guard case .respond(let response) = route else {
            Issue.record("POST was routed")
            return
        }
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET")
    }

    @Test func theApiOwnsOnlyItsPaths() {
        #expect(CallLogRouter.handles("/v3.0/calls"))
        #expect(CallLogRouter.handles("/v3.0/calls/abc"))
        #expect(!CallLogRouter.handles("/v3.0/callsx"))
        #expect(!CallLogRouter.handles("/v1/groups/x"))
    }
}
