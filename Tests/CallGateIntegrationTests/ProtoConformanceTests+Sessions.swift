import CallGateClient
import CallGateProtocol
import Testing

extension ProtoConformanceTests {
    /// Every session op and push at least once: a 1:1 session through to its end, and a meet
    /// session where a participant raises a hand, its host mutes and removes them, and which
    /// then times out.
    static func driveSessions(_ gateway: TestGateway, recorder: FrameRecorder) async throws {
        let erin = try await gateway.device("erin", recorder: recorder)
        let finn = try await gateway.device("finn", recorder: recorder)
        let call = try await erin.establishCall(with: finn, uid: "finn")
        let gus = try await gateway.device("gus", recorder: recorder)
        _ = try await finn.inviteToCall(call.sessionId, receiverIds: ["gus"])
        _ = try await gus.expectPush()
        _ = try await gus.rejectCall(call.sessionId, status: .rejected)
        let erinToken = try await erin.generateToken(sessionId: call.sessionId)
        let finnToken = try await finn.generateToken(sessionId: call.sessionId)
        _ = try await erin.joinSession(callToken: erinToken.callToken, audioOnly: true)
        _ = try await finn.joinSession(callToken: finnToken.callToken)
        _ = try await erin.expectPush()
        _ = try await erin.expectPush()
        _ = try await erin.setMuted(call.sessionId, audio: true, video: true)
        _ = try await finn.expectPush()
        _ = try await finn.startRecording(call.sessionId)
        _ = try await erin.expectPush()
        _ = try await finn.stopRecording(call.sessionId)
        _ = try await erin.expectPush()
        _ = try await erin.switchToVideo(call.sessionId)
        _ = try await finn.expectPush()
        _ = try await finn.holdCall(call.sessionId)
        _ = try await erin.expectPush()
        _ = try await finn.resumeCall(call.sessionId)
        _ = try await erin.expectPush()
        _ = try await finn.leaveSession(call.sessionId)
        for _ in 0..<4 {
            _ = try await erin.expectPush()
        }

        let meet = "meet.conformance"
        _ = try await erin.joinSession(callToken: try await erin.generateToken(sessionId: meet).callToken, idleTimeout: 1)
        _ = try await finn.joinSession(callToken: try await finn.generateToken(sessionId: meet).callToken)
        _ = try await erin.expectPush()
        _ = try await erin.expectPush()
        _ = try await finn.sendSessionEvent(meet, type: "raiseHand", data: .object(["raised": .bool(true)]))
        _ = try await erin.expectPush()
        await expectError(.notHost) { try await finn.muteParticipant(meet, uid: "erin") }
        _ = try await erin.muteParticipant(meet, uid: "finn")
        _ = try await finn.expectPush()
        _ = try await erin.removeParticipant(meet, uid: "finn")
        _ = try await finn.expectPush()
        await expectError(.notParticipant) { try await finn.leaveSession(meet) }
        _ = try await erin.expectPush()
        _ = try await erin.expectPush()
        _ = try await erin.expectPush(within: .seconds(5))
    }
}
