import CallGateProtocol
import Testing

@Suite struct EnumWireTests {
    @Test func errorCodesAreTheWireStrings() {
        #expect(ErrorCode.allCases.map(\.rawValue) == [
            "AUTH_ERR", "ERR_USER_NOT_LOGGED_IN", "ERR_BAD_REQUEST", "ERR_CALLING_SELF",
            "ERROR_CALL_IN_PROGRESS", "ERR_CALL_NOT_FOUND", "ERR_INVALID_SESSION_ID",
            "ERR_NOT_PARTICIPANT", "ERR_NOT_HOST", "ERR_CALL_ALREADY_JOINED", "ERR_CALL_CANCELLED",
            "ERR_CALL_REJECTED", "ERR_CALL_ENDED", "ERR_GROUP_NOT_FOUND", "ERR_INTERNAL",
            "ERR_TOO_MANY_DEVICES", "ERR_TOO_MANY_SESSIONS", "ERR_RATE_LIMITED", "ERR_TOO_MANY_PARTICIPANTS",
            "ERR_TOO_MANY_RECORDINGS",
            "ERR_STORE_UNAVAILABLE", "ERR_CALL_OWNER_UNREACHABLE",
            "ERR_CLUSTER_UNAVAILABLE",
        ])
    }

    @Test func onlyInitiatedAndOngoingAreLive() {
        let live = CallStatus.allCases.filter { !$0.isTerminal }
        #expect(live == [.initiated, .ongoing])
        #expect(CallStatus.allCases.map(\.rawValue) == [
            "initiated", "ongoing", "unanswered", "rejected", "busy", "cancelled", "ended",
        ])
    }

    @Test func closeCodes() {
        #expect(CloseCode.unauthorized == 4001)
        #expect(CloseCode.tokenExpired == 4003)
        #expect(CloseCode.tooSlow == 4008)
        #expect(CloseCode.messageTooBig == 1009)
        #expect(CloseCode.serviceRestart == 1012)
    }

    @Test func namesFollowTheSDKs() {
        #expect(Op.allCases.map(\.rawValue) == [
            "connect", "refreshToken", "ping", "initiateCall", "acceptCall", "confirmRinging", "rejectCall", "endCall",
            "generateToken", "joinSession", "leaveSession", "setMuted", "startRecording", "stopRecording",
            "switchToVideo", "markCallsSeen", "muteParticipant", "removeParticipant", "sendSessionEvent",
            "holdCall", "resumeCall", "inviteToCall",
        ])
        #expect(EventName.allCases.map(\.rawValue) == [
            "onIncomingCallReceived", "onOutgoingCallAccepted", "onOutgoingCallRejected",
            "onOutgoingCallRinging", "onIncomingCallCanceled", "onCallEndedMessageReceived",
            "onUserJoined", "onUserLeft", "onUserListChanged", "onUserMuted", "onRecordingToggled",
            "onCallSwitchedToVideo", "onSessionTimeout", "onCallEnded", "onMissedCallsChanged",
            "onRemovedFromCall", "onSessionEvent", "onCallHeld", "onCallResumed",
        ])
        #expect(CancelReason.allCases.map(\.rawValue) == [
            "answeredElsewhere", "rejectedElsewhere", "cancelled", "unanswered", "ended", "endedByServer",
        ])
        #expect(EndReason.allCases.map(\.rawValue) == ["hungUp", "disconnected", "removed", "endedByServer"])
        #expect(RejectStatus.allCases.map(\.rawValue) == ["rejected", "busy", "cancelled"])
        #expect(CallCategory.allCases.map(\.rawValue) == ["call", "meet"])
    }

    @Test func requestOpMatchesItsCase() {
        let requests: [(ClientRequest, Op)] = [
            (.connect(ConnectParams(token: "t")), .connect),
            (.ping, .ping),
            (.initiateCall(InitiateCallParams(receiverId: "b", receiverType: .user, callType: .audio)), .initiateCall),
            (.acceptCall(SessionParams(sessionId: "s")), .acceptCall),
            (.rejectCall(RejectCallParams(sessionId: "s", status: .busy)), .rejectCall),
            (.endCall(SessionParams(sessionId: "s")), .endCall),
            (.generateToken(SessionParams(sessionId: "s")), .generateToken),
            (.joinSession(JoinSessionParams(callToken: "t")), .joinSession),
            (.leaveSession(SessionParams(sessionId: "s")), .leaveSession),
            (.setMuted(SetMutedParams(sessionId: "s", audioMuted: true)), .setMuted),
            (.startRecording(SessionParams(sessionId: "s")), .startRecording),
            (.stopRecording(SessionParams(sessionId: "s")), .stopRecording),
            (.switchToVideo(SessionParams(sessionId: "s")), .switchToVideo),
            (.muteParticipant(ParticipantParams(sessionId: "s", uid: "u")), .muteParticipant),
            (.removeParticipant(ParticipantParams(sessionId: "s", uid: "u")), .removeParticipant),
            (.sendSessionEvent(SessionEventParams(sessionId: "s", type: "raiseHand")), .sendSessionEvent),
            (.holdCall(SessionParams(sessionId: "s")), .holdCall),
            (.resumeCall(SessionParams(sessionId: "s")), .resumeCall),
            (.inviteToCall(InviteParams(sessionId: "s", receiverIds: ["u"])), .inviteToCall),
        ]
        for (request, op) in requests {
            #expect(request.op == op)
        }
    }
}
