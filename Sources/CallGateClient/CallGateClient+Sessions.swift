import CallGateProtocol

/// Typed calls for the call-session ops. Each throws the server's `ErrorBody` when the gateway
/// answers with an error, and `CallGateClientError` when the socket fails.
extension CallGateClient {
    /// A call token for `sessionId`: a ringing call's id, or any id for a standalone session.
    public func generateToken(sessionId: String) async throws -> GenerateTokenResult {
        try await send(.generateToken(SessionParams(sessionId: sessionId))).decodeResult(GenerateTokenResult.self)
    }

    /// Joins the session the call token names.
    public func joinSession(callToken: String, audioOnly: Bool? = nil, idleTimeout: Int? = nil) async throws -> Session {
        let params = JoinSessionParams(callToken: callToken, audioOnly: audioOnly, idleTimeout: idleTimeout)
        return try await session(of: .joinSession(params))
    }

    /// Leaves a session this socket joined.
    public func leaveSession(_ sessionId: String) async throws -> Session {
        try await session(of: .leaveSession(SessionParams(sessionId: sessionId)))
    }

    /// Mutes or unmutes audio and video; nil leaves a side as it is.
    public func setMuted(_ sessionId: String, audio: Bool? = nil, video: Bool? = nil) async throws -> Session {
        try await session(of: .setMuted(SetMutedParams(sessionId: sessionId, audioMuted: audio, videoMuted: video)))
    }

    /// Starts recording the session.
    public func startRecording(_ sessionId: String) async throws -> Session {
        try await session(of: .startRecording(SessionParams(sessionId: sessionId)))
    }

    /// Stops recording the session.
    public func stopRecording(_ sessionId: String) async throws -> Session {
        try await session(of: .stopRecording(SessionParams(sessionId: sessionId)))
    }

    /// Turns an audio call into a video call.
    public func switchToVideo(_ sessionId: String) async throws -> Session {
        try await session(of: .switchToVideo(SessionParams(sessionId: sessionId)))
    }

    private func session(of request: ClientRequest) async throws -> Session {
        try await send(request).decodeResult(SessionResult.self).session
    }
}
