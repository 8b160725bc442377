import CallGateClient
import CallGateProtocol
import Foundation
import Testing

extension ProtoConformanceTests {
    /// Every call control body of the admin API, and the pushes it causes: a ring on a user's
    /// behalf, the live calls, a presence, a mute and a removal, an end with a reason (a ringing
    /// call and an answered one), and the errors; and a call that allows call waiting.
    static func driveCallControl(_ gateway: TestGateway, recorder: FrameRecorder, into bodies: inout HTTPBodyLog) async throws {
        let frank = try await gateway.device("frank", recorder: recorder)
        let gina = try await gateway.device("gina", recorder: recorder)
        let ring = #"{"initiator":"frank","receiverId":"gina","receiverType":"user","callType":"audio","metadata":{"ticket":"T-1"}}"#
        bodies.record("http.callRing", request: ring)
        let (_, rung) = try await gateway.admin("POST", "/v1/calls", json: ring)
        bodies.record("http.call", response: rung)
        let call = try JSONDecoder().decode(Call.self, from: rung)
        _ = try await gina.expectPush()
        _ = try await frank.expectPush()
        _ = try await gina.acceptCall(call.sessionId)
        _ = try await frank.expectPush()
        bodies.record("http.liveCallList", response: try await gateway.admin("GET", "/v1/calls?status=ongoing").1)
        bodies.record("http.userPresence", response: try await gateway.admin("GET", "/v1/users/frank/presence").1)
        bodies.record("http.userPresence", response: try await gateway.admin("GET", "/v1/users/nobody/presence").1)
        _ = try await frank.joinSession(callToken: try await frank.generateToken(sessionId: call.sessionId).callToken)
        _ = try await gina.joinSession(callToken: try await gina.generateToken(sessionId: call.sessionId).callToken)
        _ = try await frank.expectPush()
        _ = try await frank.expectPush()
        let participant = "/v1/calls/\(call.sessionId)/participants/gina"
        bodies.record("http.sessionResult", response: try await gateway.admin("POST", participant + "/mute").1)
        _ = try await frank.expectPush()
        _ = try await gina.expectPush()
        let end = #"{"reason":"Moderated"}"#
        bodies.record("http.callEnd", request: end)
        bodies.record("http.call", response: try await gateway.admin("POST", "/v1/calls/\(call.sessionId)/end", json: end).1)
        for device in [frank, gina] {
            while try await device.expectPush().event != .onCallEndedMessageReceived {}
        }

        let waiting = try await gina.initiateCall(to: "frank", callWaiting: true)
        _ = try await frank.expectPush()
        _ = try await gina.rejectCall(waiting.sessionId, status: .cancelled)
        _ = try await frank.expectPush()

        let ringing = try await frank.initiateCall(to: "gina")
        _ = try await gina.expectPush()
        bodies.record("http.call", response: try await gateway.admin("POST", "/v1/calls/\(ringing.sessionId)/end").1)
        _ = try await gina.expectPush()
        _ = try await frank.expectPush()

        bodies.record("http.error", response: try await gateway.admin("POST", "/v1/calls/\(ringing.sessionId)/end").1)
        bodies.record("http.error", response: try await gateway.admin("DELETE", participant).1)
        bodies.record("http.error", response: try await gateway.admin("POST", "/v1/calls", json: #"{"initiator":"x"}"#).1)
    }
}
