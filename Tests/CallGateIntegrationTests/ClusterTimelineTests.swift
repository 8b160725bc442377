import CallGateClient
import CallGateKit
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// A call's timeline in a cluster: the owner of the call notes every step, those of devices on
/// other nodes too (their ops are forwarded to it), and any node answers the timeline from the
/// shared database.
@Suite(.serialized) struct ClusterTimelineTests {
    @Test func theOwnerNotesTheStepsOfDevicesOnEveryNodeAndAnyNodeAnswersTheTimeline() async throws {
        let cluster = try await RoutingCluster(["a", "b"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bobPhone = try await cluster.device("bob", on: "b")
        let bobLaptop = try await cluster.device("bob", on: "a")
        let call = try await alice.ring("bob", ringing: [bobPhone, bobLaptop])
        _ = try await bobPhone.confirmRinging(call.sessionId)
        _ = try await bobPhone.acceptCall(call.sessionId)
        _ = try await bobLaptop.expectPush()
        _ = try await bobPhone.endCall(call.sessionId)

        let phone = try #require(bobPhone.recoveryPoint?.connectionId)
        for node in ["b", "a"] {
            let timeline = try #require(try await timelines(of: call.sessionId, as: "alice", on: node, in: cluster).first)
            let steps = timeline.steps.filter { $0.step != .webhook }
            #expect(steps.map(\.step) == [.initiated, .rung, .ringing, .accepted, .finished], "read on \(node)")
            #expect(steps[1].devices == 2, "a device on each node")
            #expect(steps[2].device == phone && steps[3].device == phone, "bob's phone on node b")
        }
        let mallory = try await api(as: "mallory", on: "b", in: cluster)
        let refused = await #expect(throws: CallLogAPIError.self) { try await mallory.timeline(sessionId: call.sessionId) }
        #expect(refused?.status == 404)
    }

    private func timelines(
        of sessionId: String, as uid: String, on node: String, in cluster: RoutingCluster
    ) async throws -> [CallTimeline] {
        try await api(as: uid, on: node, in: cluster).timeline(sessionId: sessionId).data
    }

    /// The call log of `uid` as the Swift client reads it from `node`.
    private func api(as uid: String, on node: String, in cluster: RoutingCluster) async throws -> CallLogAPI {
        let port = try #require(cluster.nodes[node]).port
        let token = try await cluster.tokens.mint(user: User(uid: uid, name: "\(uid) name"), ttl: 600).token
        return CallLogAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: token)
    }
}
