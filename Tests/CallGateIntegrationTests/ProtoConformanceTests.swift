import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// Drives every op, event, error, admin and call log body through a real gateway, records the
/// frames both ways, and has `tools/proto_check.py` validate each one against its schema in proto/.
@Suite("The real server's frames match proto/")
struct ProtoConformanceTests {
    @Test func everyFrameAndBodyMatchesItsSchema() async throws {
        let gateway = try await TestGateway { $0.mintsDevTokens = true }
        defer { gateway.shutdown() }
        let recorder = FrameRecorder()
        var bodies = HTTPBodyLog()

        bodies.record("http.health", response: try await gateway.admin("GET", "/healthz", key: nil).1)
        bodies.record("http.ready", response: try await gateway.admin("GET", "/readyz", key: nil).1)
        bodies.record("http.error", response: try await gateway.admin("POST", "/readyz", key: nil).1)
        let groupPut = #"{"name":"Team","icon":"https://example.com/t.png","members":["alice","bob","carol"]}"#
        bodies.record("http.groupPut", request: groupPut)
        bodies.record("http.groupDetail", response: try await gateway.admin("PUT", "/v1/groups/team", json: groupPut).1)
        let membersAdd = #"{"uids":["dave"]}"#
        bodies.record("http.membersAdd", request: membersAdd)
        bodies.record("http.groupDetail", response: try await gateway.admin("POST", "/v1/groups/team/members", json: membersAdd).1)
        let tokenRequest = #"{"uid":"zoe","ttl":60}"#
        bodies.record("http.tokenRequest", request: tokenRequest)
        bodies.record("http.tokenResponse", response: try await gateway.admin("POST", "/v1/tokens", json: tokenRequest).1)
        let devTokenRequest = #"{"uid":"yan","name":"Yan"}"#
        bodies.record("http.tokenRequest", request: devTokenRequest)
        bodies.record("http.tokenResponse", response: try await gateway.admin("POST", "/dev/token", json: devTokenRequest, key: nil).1)
        bodies.record("http.error", response: try await gateway.admin("POST", "/dev/token", json: "{", key: nil).1)
        bodies.record("http.error", response: try await gateway.admin("GET", "/v1/groups/nosuch").1)
        bodies.record("http.error", response: try await gateway.admin("GET", "/v1/groups/team", key: "wrong").1)
        bodies.record("http.error", response: try await gateway.admin("PUT", "/v1/groups/team", json: "{").1)

        let alice = try await gateway.device("alice", recorder: recorder)
        let bob = try await gateway.device("bob", recorder: recorder)
        let bobLaptop = try await gateway.device("bob", recorder: recorder)
        let carol = try await gateway.device("carol", recorder: recorder)
        let dave = try await gateway.device("dave", recorder: recorder)
        _ = try await alice.ping()
        _ = try await alice.refreshToken(try await gateway.token("alice", ttl: 7200))
        await expectError(.authError) { try await alice.refreshToken(try await gateway.token("bob")) }

        let call = try await alice.initiateCall(to: "bob", callType: .video, metadata: ["topic": .string("demo"), "n": .number(3)])
        _ = try await bob.expectPush()
        _ = try await bobLaptop.expectPush()
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        _ = try await bobLaptop.expectPush()
        let busy = try await carol.initiateCall(to: "bob")
        _ = try await carol.expectPush()
        await expectError(.callRejected) { try await carol.endCall(busy.sessionId) }
        _ = try await alice.endCall(call.sessionId)
        _ = try await bob.expectPush()
        _ = try await bobLaptop.expectPush()

        let declined = try await alice.initiateCall(to: "carol")
        _ = try await carol.expectPush()
        _ = try await carol.rejectCall(declined.sessionId, status: .rejected)
        _ = try await alice.expectPush()

        let cancelled = try await alice.initiateCall(to: "dave")
        _ = try await dave.expectPush()
        _ = try await dave.confirmRinging(cancelled.sessionId)
        let progress = try await alice.expectPush()
        #expect(progress.event == .onOutgoingCallRinging)
        await expectError(.notParticipant) { try await alice.confirmRinging(cancelled.sessionId) }
        _ = try await alice.rejectCall(cancelled.sessionId, status: .cancelled)
        _ = try await dave.expectPush()

        let unanswered = try await alice.initiateCall(to: "dave", timeout: 1)
        _ = try await dave.expectPush()
        _ = try await alice.expectPush(within: .seconds(5))
        _ = try await dave.expectPush()

        let group = try await alice.initiateCall(to: "team", receiverType: .group)
        for member in [bob, bobLaptop, carol, dave] {
            _ = try await member.expectPush()
        }
        _ = try await carol.rejectCall(group.sessionId, status: .rejected)
        _ = try await bob.acceptCall(group.sessionId)
        _ = try await alice.expectPush()
        _ = try await bobLaptop.expectPush()
        _ = try await bob.endCall(group.sessionId)
        _ = try await alice.expectPush()
        _ = try await dave.expectPush()
        await expectError(.callEnded) { try await dave.acceptCall(unanswered.sessionId) }

        let point = try #require(dave.recoveryPoint)
        dave.drop()
        _ = await dave.nextEvent(timeout: .seconds(5))
        let missed = try await alice.initiateCall(to: "dave")
        _ = try await alice.rejectCall(missed.sessionId, status: .cancelled)
        let daveAgain = try await gateway.socket(recorder: recorder)
        // Dave missed the ring and its cancel, and maybe a count of his missed calls, coalesced.
        let recovered = try await daveAgain.connect(token: try await gateway.token("dave"), recover: point)
        let replayed = try #require(recovered.recovery?.missed)
        #expect(recovered.recovery?.recovered == true && replayed >= 2)
        #expect(recovered.unseenMissedCalls.map { $0 > 0 } == true)
        for _ in 0..<replayed {
            _ = try await daveAgain.expectPush(includingMissedCalls: true)
        }
        let seen = try await daveAgain.markCallsSeen()
        #expect(seen.unseen == 0)
        while try await daveAgain.expectMissedCalls() != seen {}
        let daveElsewhere = try await gateway.socket(recorder: recorder)
        let lost = RecoverParams(epoch: "elsewhere-1", seq: 3)
        #expect(try await daveElsewhere.connect(token: try await gateway.token("dave"), recover: lost).recovery?.recovered == false)

        let stranger = try await gateway.socket(recorder: recorder)
        await expectError(.userNotLoggedIn) { try await stranger.ping() }
        await expectError(.authError) { try await stranger.connect(token: "nope") }
        alice.sendRaw("{broken")
        _ = try await alice.expectEvent()

        try await Self.driveSessions(gateway, recorder: recorder)
        try await Self.driveCallLogs(gateway, into: &bodies)
        try await Self.driveCallControl(gateway, recorder: recorder, into: &bodies)

        let lines = try FrameSchemaMapper.lines(for: recorder.recorded) + bodies.lines
        let names = Set(lines.map(\.schema))
        for op in Op.allCases {
            #expect(names.contains("request.\(op.rawValue)"), "no request.\(op.rawValue) frame was checked")
            #expect(names.contains("result.\(op.rawValue)"), "no result.\(op.rawValue) frame was checked")
        }
        for event in EventName.allCases {
            #expect(names.contains("event.\(event.rawValue)"), "no event.\(event.rawValue) frame was checked")
        }
        #expect(names.contains("error"))

        let report = try await ProtoChecker.check(lines)
        #expect(report.exitCode == 0, "\(report.output)")
        #expect(report.output.contains("\(lines.count) passed, 0 failed"), "\(report.output)")
    }
}
