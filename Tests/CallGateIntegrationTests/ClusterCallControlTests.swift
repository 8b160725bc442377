import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// The admin API's call control in a cluster: a ring on a user's behalf from any node, the live
/// calls and a user's presence as every node knows them, and ops on a call sent to a node that
/// does not own it, which has its owner run them.
@Suite(.serialized) struct ClusterCallControlTests {
    @Test func theBackendSteersCallsFromANodeThatDoesNotOwnThem() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")

        let call = try await cluster.ringBobForAlice(on: "b")
        #expect(call.initiator == User(uid: "alice", name: "alice name"), "named as alice's device on node a says")
        #expect(try await bob.expectPush() == .incomingCallReceived(call: call))
        guard case .outgoingCallRinging(let told, _) = try await alice.expectPush() else {
            Issue.record("alice's device on node a should hear of the call node b rang for her")
            return
        }
        #expect(told.sessionId == call.sessionId)
        let (busy, _) = try await cluster.admin(
            "POST", "/v1/calls", json: #"{"initiator":"alice","receiverId":"carol","receiverType":"user","callType":"audio"}"#, on: "a")
        #expect(busy == 409, "node b's call holds alice on every node")

        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        let (listed, listBody) = try await cluster.admin("GET", "/v1/calls?status=ongoing", on: "a")
        #expect(listed == 200 && String(decoding: listBody, as: UTF8.self).contains(call.sessionId))
        for node in ["a", "b"] {
            let (presenceStatus, presenceBody) = try await cluster.admin("GET", "/v1/users/alice/presence", on: node)
            let presence = try #require(JSONSerialization.jsonObject(with: presenceBody) as? [String: Any])
            #expect(presenceStatus == 200 && presence["devices"] as? Int == 1, "node \(node)")
            #expect((presence["call"] as? [String: Any])?["sessionId"] as? String == call.sessionId, "node \(node)")
        }

        let (ended, endBody) = try await cluster.admin(
            "POST", "/v1/calls/\(call.sessionId)/end", json: #"{"reason":"moderated"}"#, on: "a")
        #expect(ended == 200)
        let final = try JSONDecoder().decode(Call.self, from: endBody)
        #expect(final.callStatus == .ended && final.serverReason == "moderated")
        for device in [alice, bob] {
            #expect(try await device.expectPush() == .callEndedMessageReceived(call: final, by: nil, reason: .endedByServer))
        }
        let (again, againBody) = try await cluster.admin("POST", "/v1/calls/\(call.sessionId)/end", on: "a")
        #expect(again == 409 && String(decoding: againBody, as: UTF8.self).contains("ERR_CALL_FINISHED"), "answered by the owner")
    }

    /// The initiator's device lives on another node than the call the backend rang: it is
    /// counted present there, so the call outlives the participant grace period once answered.
    @Test func aCallRungForAUserOnAnotherNodeOutlivesTheGracePeriod() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--participant-grace-seconds", "1"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let call = try await cluster.ringBobForAlice(on: "b")
        _ = try await bob.expectPush()
        _ = try await alice.expectPush()
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        try await Task.sleep(for: .seconds(3))
        await alice.expectSilence()
        let (_, listed) = try await cluster.admin("GET", "/v1/calls?status=ongoing", on: "a")
        #expect(String(decoding: listed, as: UTF8.self).contains(call.sessionId), "the call goes on")
    }

    @Test func aParticipantIsMutedAndRemovedThroughANodeThatDoesNotOwnTheMeeting() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "b")
        let room = "meet:cluster-townhall"
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: room).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: room).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()

        #expect(try await cluster.admin("POST", "/v1/calls/\(room)/participants/bob/mute", on: "b").0 == 200)
        let muted = Push.userMuted(
            sessionId: room, user: User(uid: "bob", name: "bob name"), audioMuted: true, videoMuted: false)
        #expect(try await bob.expectPush() == muted)
        #expect(try await alice.expectPush() == muted)
        #expect(try await cluster.admin("DELETE", "/v1/calls/\(room)/participants/bob", on: "b").0 == 200)
        #expect(try await bob.expectPush() == .removedFromCall(sessionId: room, by: nil))
        #expect(try await cluster.admin("DELETE", "/v1/calls/\(room)/participants/bob", on: "b").0 == 404)
    }
}

extension RoutingCluster {
    /// `POST /v1/calls` to node `node`: the backend rings bob on alice's behalf; the call it
    /// answered with 201.
    func ringBobForAlice(on node: String) async throws -> Call {
        let (status, body) = try await admin(
            "POST", "/v1/calls", json: #"{"initiator":"alice","receiverId":"bob","receiverType":"user","callType":"audio"}"#, on: node)
        #expect(status == 201)
        return try JSONDecoder().decode(Call.self, from: body)
    }
}
