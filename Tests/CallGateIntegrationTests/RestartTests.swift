import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// A gateway stopped and started again on the same database keeps its groups and its calls.
@Suite("Restarts on the same database")
struct RestartTests {
    @Test func groupsAndFinishedCallsSurviveARestart() async throws {
        let directory = try TemporaryDirectory()
        let first = try await TestGateway(directory: directory)
        try await first.putGroup("team", members: ["alice", "bob"])
        let alice = try await first.device("alice")
        let bob = try await first.device("bob")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        _ = try await bob.endCall(call.sessionId)
        first.shutdown()

        let second = try await TestGateway(directory: directory)
        defer { second.shutdown() }
        #expect(try await second.admin("GET", "/v1/groups/team").0 == 200)
        #expect(try await second.callLogs("alice").data.map(\.callStatus) == [.ended])
        let aliceAgain = try await second.device("alice")
        let bobAgain = try await second.device("bob")
        let group = try await aliceAgain.initiateCall(to: "team", receiverType: .group)
        #expect(try await bobAgain.expectPush() == .incomingCallReceived(call: group))
        try await second.awaitLogged(group.sessionId, for: "bob")
        let ids = try await second.callLogs("bob").data.map(\.sessionId)
        #expect(ids == [group.sessionId, call.sessionId])
    }

    @Test func aRingingCallRingsAgainAfterARestartAndCanBeAnswered() async throws {
        let directory = try TemporaryDirectory()
        let first = try await TestGateway(directory: directory)
        let alice = try await first.device("alice")
        let call = try await alice.initiateCall(to: "bob", timeout: 60)
        first.shutdown()

        let second = try await TestGateway(directory: directory) { $0.core.callerGracePeriod = .seconds(10) }
        defer { second.shutdown() }
        let bob = try await second.socket()
        let connected = try await bob.connect(token: try await second.token("bob"))
        #expect(connected.activeCalls.map(\.sessionId) == [call.sessionId])
        let aliceAgain = try await second.socket()
        _ = try await aliceAgain.connect(token: try await second.token("alice"))
        let accepted = try await bob.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        guard case .outgoingCallAccepted(let heard, _) = try await aliceAgain.expectPush() else {
            Issue.record("the caller did not hear the accept")
            return
        }
        #expect(heard.sessionId == call.sessionId)
        _ = try await aliceAgain.endCall(call.sessionId)
        let logs = try await second.callLogs("bob").data
        #expect(logs.map(\.sessionId) == [call.sessionId])
        #expect(logs.first?.callStatus == .ended)
    }

    @Test func aCallWhoseRingTimeoutPassedWhileDownIsUnansweredOnStart() async throws {
        let directory = try TemporaryDirectory()
        let first = try await TestGateway(directory: directory)
        let alice = try await first.device("alice")
        let call = try await alice.initiateCall(to: "bob", timeout: 1)
        first.shutdown()
        try await Task.sleep(for: .milliseconds(1100))

        let second = try await TestGateway(directory: directory)
        defer { second.shutdown() }
        let logs = try await second.callLogs("bob").data
        #expect(logs.map(\.sessionId) == [call.sessionId])
        #expect(logs.first?.callStatus == .unanswered)
        #expect(logs.first?.missed == true)
        let bob = try await second.socket()
        #expect(try await bob.connect(token: try await second.token("bob")).activeCalls.isEmpty)
    }

    @Test func anOngoingCallNobodyComesBackToEndsAfterTheGracePeriod() async throws {
        let directory = try TemporaryDirectory()
        let first = try await TestGateway(directory: directory)
        let alice = try await first.device("alice")
        let bob = try await first.device("bob")
        let call = try await alice.establishCall(with: bob, uid: "bob")
        first.shutdown()

        let second = try await TestGateway(directory: directory)
        defer { second.shutdown() }
        #expect(try await second.callLogs("alice").data.first?.callStatus == .ongoing)
        var status: CallStatus?
        for _ in 0..<50 where status != .ended {
            try await Task.sleep(for: .milliseconds(100))
            status = try await second.callLogs("alice").data.first?.callStatus
        }
        #expect(status == .ended)
        #expect(try await second.callLogs("bob").data.map(\.sessionId) == [call.sessionId])
    }
}
