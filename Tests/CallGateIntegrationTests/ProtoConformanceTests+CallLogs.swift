import CallGateProtocol
import Foundation
import Testing

extension ProtoConformanceTests {
    /// Every call log body: lists from both sides of the calls driven before (1:1, group, busy,
    /// unanswered, a meet with a recording), a detail, a recording URL attached, and the errors.
    static func driveCallLogs(_ gateway: TestGateway, into bodies: inout HTTPBodyLog) async throws {
        for uid in ["alice", "bob", "dave", "erin"] {
            bodies.record("http.callLogList", response: try await gateway.userGet("/v3.0/calls?perPage=3", as: uid).1)
        }
        let first = try await gateway.callLogs("alice", "perPage=2")
        let next = try #require(first.meta.cursor.next)
        bodies.record("http.callLogList", response: try await gateway.userGet("/v3.0/calls?perPage=2&cursor=\(next)", as: "alice").1)
        let group = try #require(try await gateway.callLogs("carol", "guid=team").data.first)
        bodies.record("http.callLogDetail", response: try await gateway.userGet("/v3.0/calls/\(group.sessionId)", as: "carol").1)
        bodies.record("http.callTimeline", response: try await gateway.userGet("/v3.0/calls/\(group.sessionId)/timeline", as: "carol").1)

        let recorded = try #require(try await gateway.callLogs("erin", "hasRecording=1").data.first)
        let rid = try #require(recorded.recordings.first?.rid)
        let attach = #"{"recordingUrl":"https://files.example.com/\#(rid).mp4"}"#
        bodies.record("http.recordingUrl", request: attach)
        let path = "/v1/calls/\(recorded.sessionId)/recordings/\(rid)"
        bodies.record("http.recordingAttached", response: try await gateway.admin("POST", path, json: attach).1)
        bodies.record("http.callLogDetail", response: try await gateway.userGet("/v3.0/calls/\(recorded.sessionId)", as: "erin").1)
        bodies.record("http.callTimeline", response: try await gateway.userGet("/v3.0/calls/\(recorded.sessionId)/timeline", as: "erin").1)

        bodies.record("http.error", response: try await gateway.userGet("/v3.0/calls?perPage=0", as: "alice").1)
        bodies.record("http.error", response: try await gateway.userGet("/v3.0/calls", as: nil).1)
        bodies.record("http.error", response: try await gateway.userGet("/v3.0/calls/\(group.sessionId)", as: "erin").1)
        bodies.record("http.error", response: try await gateway.userGet("/v3.0/calls/\(group.sessionId)/timeline", as: "erin").1)
    }
}
