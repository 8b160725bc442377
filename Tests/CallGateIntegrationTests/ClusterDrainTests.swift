import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// A cluster node drained by SIGTERM, as a deploy does: its devices are moved with 1012 and the
/// reconnect hint, come back on another node with what they missed, and its calls are handed on
/// to a survivor, which runs them to their end.
@Suite(.serialized) struct ClusterDrainTests {
    @Test func aDrainedNodesDevicesMoveAndItsAnsweredCallGoesOnOnTheSurvivor() async throws {
        let cluster = try await RoutingCluster(["a", "b"], ["--drain-seconds", "2"])
        defer { cluster.stop() }
        let alice = try await cluster.device("alice", on: "a")
        let bob = try await cluster.device("bob", on: "a")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        #expect(try await eventually(within: 5) {
            try await databaseRows(cluster.database, "SELECT status, owner_node FROM calls WHERE session_id = '\(call.sessionId)'")
                == ["ongoing|a"]
        })

        let node = try #require(cluster.nodes["a"])
        node.send(SIGTERM)
        var moved: [CallGateClient] = []
        for (uid, device) in [("alice", alice), ("bob", bob)] {
            #expect(try await device.expectClose(within: .seconds(10)) == CloseCode.serviceRestart)
            #expect(device.reconnectHint == ReconnectHint.gateway)
            let (client, result) = try await cluster.connect(uid, on: "b", recovering: device.recoveryPoint)
            #expect(result.activeCalls.map(\.sessionId) == [call.sessionId], "\(uid) finds the call on the survivor")
            #expect(result.recovery?.recovered == true, "\(uid) recovers the sequence on another node")
            moved.append(client)
        }
        #expect(try await node.exitStatus(within: .seconds(15)) == 0)
        #expect(try await eventually(within: 10) {
            try await databaseRows(cluster.database, "SELECT owner_node FROM calls WHERE session_id = '\(call.sessionId)'") == ["b"]
        }, "the survivor took the call over when the node left")

        let ended = try await moved[1].endCall(call.sessionId)
        #expect(ended.callStatus == .ended)
        #expect(try await moved[0].expectPush().event == .onCallEndedMessageReceived)
        let rows = try await databaseRows(cluster.database, "SELECT status FROM calls WHERE session_id = '\(call.sessionId)'")
        #expect(rows == ["ended"], "one row, one terminal status")
    }
}
