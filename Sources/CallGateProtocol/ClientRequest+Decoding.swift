extension ClientRequest {
    /// Builds the request for `op` from its `data` fields. Unknown fields are ignored.
    init(op: Op, reading data: FrameFieldReader) throws(FrameDecodingError) {
        switch op {
        case .connect:
            self = .connect(ConnectParams(token: try data.string("token")))
        case .refreshToken:
            self = .refreshToken(RefreshTokenParams(token: try data.string("token")))
        case .ping:
            self = .ping
        case .initiateCall:
            self = .initiateCall(InitiateCallParams(
                receiverId: try data.string("receiverId"),
                receiverType: try data.choice("receiverType", as: ReceiverType.self),
                callType: try data.choice("callType", as: CallType.self),
                timeout: try data.optionalInteger("timeout"),
                metadata: try data.optionalObject("metadata")
            ))
        case .acceptCall:
            self = .acceptCall(SessionParams(sessionId: try data.string("sessionId")))
        case .rejectCall:
            self = .rejectCall(RejectCallParams(
                sessionId: try data.string("sessionId"),
                status: try data.choice("status", as: RejectStatus.self)
            ))
        case .endCall:
            self = .endCall(SessionParams(sessionId: try data.string("sessionId")))
        case .generateToken:
            self = .generateToken(SessionParams(sessionId: try data.string("sessionId")))
        case .joinSession:
            self = .joinSession(JoinSessionParams(
                callToken: try data.string("callToken"),
                audioOnly: try data.optionalBool("audioOnly"),
                idleTimeout: try data.optionalInteger("idleTimeout")
            ))
        case .leaveSession:
            self = .leaveSession(SessionParams(sessionId: try data.string("sessionId")))
        case .setMuted:
            self = .setMuted(SetMutedParams(
                sessionId: try data.string("sessionId"),
                audioMuted: try data.optionalBool("audioMuted"),
                videoMuted: try data.optionalBool("videoMuted")
            ))
        case .startRecording:
            self = .startRecording(SessionParams(sessionId: try data.string("sessionId")))
        case .stopRecording:
            self = .stopRecording(SessionParams(sessionId: try data.string("sessionId")))
        case .switchToVideo:
            self = .switchToVideo(SessionParams(sessionId: try data.string("sessionId")))
        }
    }
}
