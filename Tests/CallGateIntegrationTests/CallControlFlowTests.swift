import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// The admin API's call control over real HTTP and real sockets: the app's backend rings on a
/// user's behalf, lists the live calls, tells a user's presence, ends a call with a reason, and
/// mutes or removes a participant.
@Suite("Call control by the app's backend")
struct CallControlFlowTests {
    @Test func theBackendRingsForAUserListsTheCallAndEndsItWithAReason() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")

        let (status, body) = try await gateway.admin(
            "POST", "/v1/calls",
            json: #"{"initiator":"alice","receiverId":"bob","receiverType":"user","callType":"video","metadata":{"ticket":7}}"#)
        #expect(status == 201)
        let call = try JSONDecoder().decode(Call.self, from: body)
        #expect(call.initiator == User(uid: "alice", name: "Alice") && call.callStatus == .initiated)
        #expect(try await bob.expectPush() == .incomingCallReceived(call: call))
        guard case .outgoingCallRinging(let told, _) = try await alice.expectPush() else {
            Issue.record("alice's device should hear of the call the backend rang for her")
            return
        }
        #expect(told == call)

        #expect(try await liveCalls(gateway, "?status=ringing").map(\.sessionId) == [call.sessionId])
        let answered = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        #expect(try await liveCalls(gateway, "?status=ringing").isEmpty)
        #expect(try await liveCalls(gateway, "?status=ongoing&perPage=1&page=1") == [answered])
        #expect(try await liveCalls(gateway, "?page=2&perPage=1").isEmpty)

        let presence = try await json(gateway.admin("GET", "/v1/users/alice/presence"))
        #expect(presence["online"] as? Bool == true && presence["devices"] as? Int == 1)
        #expect((presence["call"] as? [String: Any])?["sessionId"] as? String == call.sessionId)
        let nobody = try await json(gateway.admin("GET", "/v1/users/zoe/presence"))
        #expect(nobody["online"] as? Bool == false && nobody["devices"] as? Int == 0 && nobody["call"] == nil)

        let (endStatus, endBody) = try await gateway.admin(
            "POST", "/v1/calls/\(call.sessionId)/end", json: #"{"reason":"Your plan's minutes ran out"}"#)
        #expect(endStatus == 200)
        let ended = try JSONDecoder().decode(Call.self, from: endBody)
        #expect(ended.callStatus == .ended && ended.serverReason == "Your plan's minutes ran out")
        for device in [alice, bob] {
            #expect(try await device.expectPush() == .callEndedMessageReceived(call: ended, by: nil, reason: .endedByServer))
        }
        let (again, againBody) = try await gateway.admin("POST", "/v1/calls/\(call.sessionId)/end")
        #expect(again == 409 && String(decoding: againBody, as: UTF8.self).contains("ERR_CALL_FINISHED"))
        #expect(try await gateway.admin("POST", "/v1/calls/v1.nosuchcall/end").0 == 404)
        let (timelineStatus, timeline) = try await gateway.userGet("/v3.0/calls/\(call.sessionId)/timeline", as: "bob")
        #expect(timelineStatus == 200)
        #expect(String(decoding: timeline, as: UTF8.self).contains(#""serverReason":"Your plan's minutes ran out""#))
    }

    @Test func aDoorbellRingsAGroupItIsNoMemberOfAndTheRingIsCancelledForEveryone() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        try await gateway.putGroup("household", members: ["bob", "carol"])
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        let (status, body) = try await gateway.admin(
            "POST", "/v1/calls",
            json: #"{"initiator":{"uid":"door-1","name":"Front door"},"receiverId":"household","receiverType":"group","callType":"video"}"#)
        #expect(status == 201)
        let call = try JSONDecoder().decode(Call.self, from: body)
        #expect(call.initiator == User(uid: "door-1", name: "Front door"))
        #expect(try await bob.expectPush() == .incomingCallReceived(call: call))
        #expect(try await carol.expectPush() == .incomingCallReceived(call: call))
        let (busy, busyBody) = try await gateway.admin(
            "POST", "/v1/calls", json: #"{"initiator":"door-1","receiverId":"bob","receiverType":"user","callType":"audio"}"#)
        #expect(busy == 409 && String(decoding: busyBody, as: UTF8.self).contains("ERROR_CALL_IN_PROGRESS"))

        let (endStatus, endBody) = try await gateway.admin("POST", "/v1/calls/\(call.sessionId)/end")
        #expect(endStatus == 200)
        let cancelled = try JSONDecoder().decode(Call.self, from: endBody)
        #expect(cancelled.callStatus == .cancelled && cancelled.serverReason == nil)
        #expect(try await bob.expectPush() == .incomingCallCanceled(call: cancelled, reason: .endedByServer))
        #expect(try await carol.expectPush() == .incomingCallCanceled(call: cancelled, reason: .endedByServer))
    }

    @Test func theBackendMutesAndRemovesAParticipantOfAMeeting() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let room = "meet:townhall"
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: room).callToken)
        let bobToken = try await bob.generateToken(sessionId: room)
        _ = try await bob.joinSession(callToken: bobToken.callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()
        let aliceUser = User(uid: "alice", name: "Alice")
        let bobUser = User(uid: "bob", name: "Bob")

        let (muted, mutedBody) = try await gateway.admin("POST", "/v1/calls/\(room)/participants/alice/mute")
        #expect(muted == 200)
        let session = try JSONDecoder().decode(SessionResult.self, from: mutedBody).session
        #expect(session.participants.first { $0.uid == "alice" }?.audioMuted == true)
        let mutedPush = Push.userMuted(sessionId: room, user: aliceUser, audioMuted: true, videoMuted: false)
        #expect(try await alice.expectPush() == mutedPush)
        #expect(try await bob.expectPush() == mutedPush)

        #expect(try await gateway.admin("DELETE", "/v1/calls/\(room)/participants/bob").0 == 200)
        #expect(try await bob.expectPush() == .removedFromCall(sessionId: room, by: nil))
        #expect(try await alice.expectPush() == .userLeft(sessionId: room, user: bobUser))
        await expectError(.notParticipant) { try await bob.joinSession(callToken: bobToken.callToken) }
        #expect(try await gateway.admin("DELETE", "/v1/calls/\(room)/participants/bob").0 == 404)
        #expect(try await gateway.admin("POST", "/v1/calls/\(room)/end").0 == 400, "a meeting ends with its last participant")
    }

    /// Every value the backend sends is bounded: each crossing gets 400 (or 401, 404, 405) and
    /// the gateway goes on.
    @Test func hostileCallControlRequestsAreRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let ring = "/v1/calls"
        #expect(try await gateway.admin("POST", ring, json: #"{"initiator":"bob","receiverId":"x","receiverType":"user","callType":"audio"}"#, key: nil).0 == 401)
        for body in [
            #"{"receiverId":"bob","receiverType":"user","callType":"audio"}"#,
            #"{"initiator":"a b","receiverId":"bob","receiverType":"user","callType":"audio"}"#,
            #"{"initiator":{"uid":"door","name":""},"receiverId":"bob","receiverType":"user","callType":"audio"}"#,
            #"{"initiator":"door","receiverId":"bob","receiverType":"room","callType":"audio"}"#,
            #"{"initiator":"door","receiverId":"bob","receiverType":"user","callType":"audio","timeout":100000}"#,
            #"{"initiator":"door","receiverId":"door","receiverType":"user","callType":"audio"}"#,
            #"{"initiator":5}"#, "[]", "",
        ] {
            #expect(try await gateway.admin("POST", ring, json: body).0 == 400, "\(body)")
        }
        for query in ["?status=ended", "?page=0", "?perPage=101", "?perPage=x"] {
            #expect(try await gateway.admin("GET", ring + query).0 == 400, "\(query)")
        }
        #expect(try await gateway.admin("POST", "/v1/calls/bad%20id/end").0 == 400)
        let long = String(repeating: "x", count: 257)
        #expect(try await gateway.admin("POST", "/v1/calls/v1.x/end", json: #"{"reason":"\#(long)"}"#).0 == 400)
        #expect(try await gateway.admin("POST", "/v1/calls/v1.x/end", json: #"{"reason":7}"#).0 == 400)
        #expect(try await gateway.admin("POST", "/v1/calls/v1.x/participants/a%20b/mute").0 == 400)
        #expect(try await gateway.admin("GET", "/v1/calls/v1.x/participants/bob/mute").0 == 405)
        #expect(try await gateway.admin("GET", "/v1/users/\(long)/presence").0 == 400)
        #expect(try await gateway.admin("GET", "/healthz", key: nil).0 == 200)
    }

    private func liveCalls(_ gateway: TestGateway, _ query: String) async throws -> [Call] {
        let (status, body) = try await gateway.admin("GET", "/v1/calls" + query)
        #expect(status == 200)
        struct Page: Decodable { var data: [Call] }
        return try JSONDecoder().decode(Page.self, from: body).data
    }

    private func json(_ answer: (Int, Data)) throws -> [String: Any] {
        #expect(answer.0 == 200)
        return try #require(JSONSerialization.jsonObject(with: answer.1) as? [String: Any])
    }
}
