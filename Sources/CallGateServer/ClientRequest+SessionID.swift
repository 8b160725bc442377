import CallGateProtocol

extension ClientRequest {
    /// The call or session the request is about, if it names one.
    var sessionId: String? {
        switch self {
        case .acceptCall(let params): params.sessionId
        case .confirmRinging(let params): params.sessionId
        case .rejectCall(let params): params.sessionId
        case .endCall(let params): params.sessionId
        case .generateToken(let params): params.sessionId
        case .leaveSession(let params): params.sessionId
        case .setMuted(let params): params.sessionId
        case .startRecording(let params): params.sessionId
        case .stopRecording(let params): params.sessionId
        case .switchToVideo(let params): params.sessionId
        case .muteParticipant(let params): params.sessionId
        case .removeParticipant(let params): params.sessionId
        case .sendSessionEvent(let params): params.sessionId
        case .holdCall(let params), .resumeCall(let params): params.sessionId
        case .inviteToCall(let params): params.sessionId
        case .connect, .refreshToken, .ping, .initiateCall, .joinSession, .markCallsSeen: nil
        }
    }

    /// Whether the op acts on a call or session, so that in cluster mode it runs on the node
    /// that owns it (`joinSession` names its session in its call token).
    var isForwardable: Bool {
        if case .joinSession = self { return true }
        return sessionId != nil
    }

    /// Whether the op starts a call.
    var isInitiate: Bool {
        if case .initiateCall = self { return true }
        return false
    }

    /// Whether the op may change the call log (a call, a session, its history): refused with
    /// `ERR_STORE_UNAVAILABLE` while the store is behind.
    var writesCallLog: Bool {
        switch self {
        case .initiateCall, .acceptCall, .rejectCall, .endCall, .joinSession, .leaveSession, .setMuted,
            .startRecording, .stopRecording, .switchToVideo, .muteParticipant, .removeParticipant, .holdCall, .resumeCall,
            .inviteToCall:
            true
        case .connect, .refreshToken, .ping, .generateToken, .confirmRinging, .markCallsSeen, .sendSessionEvent:
            false
        }
    }
}
