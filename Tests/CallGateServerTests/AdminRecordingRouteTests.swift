import CallGateServer
import Testing

/// `POST /v1/calls/{sessionId}/recordings/{rid}`: validation before the store is touched.
@Suite struct AdminRecordingRouteTests {
    @Test func aValidAttachmentGoesToTheStore() async throws {
        let admin = try await AdminFixture()
        let route = admin.router.route(AdminFixture.request(
            .post, "/v1/calls/abc.1/recordings/abc.1-r2", json: #"{"recordingUrl":"https://files.example/r2.mp4","startedAt":1763888410}"#))
        guard case .attachRecording(let sessionId, let rid, let url, let startedAt) = route else {
            Issue.record("expected attachRecording, got \(route)")
            return
        }
        #expect(sessionId == "abc.1")
        #expect(rid == "abc.1-r2")
        #expect(url == "https://files.example/r2.mp4")
        #expect(startedAt == 1_763_888_410)
    }

    @Test(arguments: [
        ("/v1/calls/abc/recordings/abc-r1", #"{"recordingUrl":"ftp://x/y"}"#, "recordingUrl"),
        ("/v1/calls/abc/recordings/abc-r1", #"{"recordingUrl":"not a url"}"#, "recordingUrl"),
        ("/v1/calls/abc/recordings/abc-r1", #"{}"#, "recordingUrl"),
        ("/v1/calls/abc/recordings/other-r1", #"{"recordingUrl":"https://x/y"}"#, "rid"),
        ("/v1/calls/abc/recordings/abc-r0", #"{"recordingUrl":"https://x/y"}"#, "rid"),
        ("/v1/calls/a%20b/recordings/a%20b-r1", #"{"recordingUrl":"https://x/y"}"#, "sessionId"),
        ("/v1/calls/abc/recordings/abc-r1", #"{"recordingUrl":"https://x/y","startedAt":-1}"#, "startedAt"),
        ("/v1/calls/abc/recordings/abc-r1", #"{"recordingUrl":"https://x/y","startedAt":"noon"}"#, "startedAt"),
    ])
    func badAttachmentsAre400NamingTheField(path: String, json: String, field: String) async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(.post, path, json: json)
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"\(field)"))
    }

    @Test func theRouteWantsTheAdminKeyAndPost() async throws {
        let admin = try await AdminFixture()
        let unauthorized = admin.respond(AdminFixture.request(
            .post, "/v1/calls/abc/recordings/abc-r1", json: #"{"recordingUrl":"https://x/y"}"#, authorization: nil))
        #expect(unauthorized.status == 401)
        #expect(admin.respond(.get, "/v1/calls/abc/recordings/abc-r1").status == 405)
    }

    @Test func theAnswerEchoesTheAttachmentOr404Or409() {
        let ok = AdminRouter.recordingResponse(.attached, sessionId: "abc", rid: "abc-r1", url: "https://x/y")
        #expect(ok.status == 200)
        #expect(String(decoding: ok.body, as: UTF8.self)
            == #"{"recordingUrl":"https://x/y","rid":"abc-r1","sessionId":"abc"}"#)
        #expect(AdminRouter.recordingResponse(.notFound, sessionId: "abc", rid: "abc-r1", url: "https://x/y").status == 404)
        let ambiguous = AdminRouter.recordingResponse(.ambiguous, sessionId: "abc", rid: "abc-r1", url: "https://x/y")
        #expect(ambiguous.status == 409)
        #expect(String(decoding: ambiguous.body, as: UTF8.self).contains("ERR_AMBIGUOUS_RECORDING"))
    }
}
