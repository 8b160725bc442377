import Foundation

/// Typed calls for each op of protocol v1. Each throws the server's `ErrorBody` when the gateway
/// answers with an error, and the requester's own error when its socket fails.
extension CallGateRequester {
    /// Extends this socket's life with a newer connection token for the same user; send it
    /// before the current token's `tokenExpiresAt`, or the gateway closes the socket with 4003.
    public func refreshToken(_ token: String) async throws -> RefreshTokenResult {
        try await send(.refreshToken(RefreshTokenParams(token: token))).decodeResult(RefreshTokenResult.self)
    }

    /// Measures the round trip and reads the server's clock.
    public func ping() async throws -> PingResult {
        try await send(.ping).decodeResult(PingResult.self)
    }

    /// Rings a user or a group; with `callWaiting`, a callee in another call is rung too, and
    /// taking this call puts theirs on hold.
    public func initiateCall(
        to receiverId: String, receiverType: ReceiverType = .user, callType: CallType = .audio,
        timeout: Int? = nil, metadata: [String: JSONValue]? = nil, callWaiting: Bool? = nil
    ) async throws -> Call {
        let params = InitiateCallParams(
            receiverId: receiverId, receiverType: receiverType, callType: callType, timeout: timeout, metadata: metadata,
            callWaiting: callWaiting)
        return try await send(.initiateCall(params)).decodeResult(Call.self)
    }

    /// Answers a ringing call.
    public func acceptCall(_ sessionId: String) async throws -> Call {
        try await send(.acceptCall(SessionParams(sessionId: sessionId))).decodeResult(Call.self)
    }

    /// Tells the caller that this device shows the ringing call (their `onOutgoingCallRinging`
    /// counts it); an app sends it when it surfaces the ring. Confirming twice changes nothing.
    public func confirmRinging(_ sessionId: String) async throws -> Call {
        try await send(.confirmRinging(SessionParams(sessionId: sessionId))).decodeResult(Call.self)
    }

    /// Marks this user's missed calls seen on every device: all of them, or those up to the call
    /// `sessionId` in the call log (it included). Answers the count after; every device of the
    /// user hears it in `onMissedCallsChanged` when it changed.
    public func markCallsSeen(through sessionId: String? = nil) async throws -> MissedCalls {
        try await send(.markCallsSeen(MarkCallsSeenParams(sessionId: sessionId))).decodeResult(MissedCalls.self)
    }

    /// Declines (`rejected`, `busy`) as a callee, or cancels (`cancelled`) as the caller.
    public func rejectCall(_ sessionId: String, status: RejectStatus) async throws -> Call {
        try await send(.rejectCall(RejectCallParams(sessionId: sessionId, status: status))).decodeResult(Call.self)
    }

    /// Hangs up.
    public func endCall(_ sessionId: String) async throws -> Call {
        try await send(.endCall(SessionParams(sessionId: sessionId))).decodeResult(Call.self)
    }
}

/// Typed calls for the call-session ops. Each throws the server's `ErrorBody` when the gateway
/// answers with an error, and the requester's own error when its socket fails.
extension CallGateRequester {
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

    /// The host mutes participant `uid`'s audio; the others hear `onUserMuted` with `mutedBy`.
    /// Anyone but the host gets `ERR_NOT_HOST`.
    public func muteParticipant(_ sessionId: String, uid: String) async throws -> Session {
        try await session(of: .muteParticipant(ParticipantParams(sessionId: sessionId, uid: uid)))
    }

    /// The host removes participant `uid` from the session; their devices hear
    /// `onRemovedFromCall`, the others `onUserLeft`. Anyone but the host gets `ERR_NOT_HOST`.
    public func removeParticipant(_ sessionId: String, uid: String) async throws -> Session {
        try await session(of: .removeParticipant(ParticipantParams(sessionId: sessionId, uid: uid)))
    }

    /// Sends an app-defined event (`raiseHand`, `reaction`, ...) with optional `data` to the
    /// session's other devices, as `onSessionEvent`; not stored.
    public func sendSessionEvent(_ sessionId: String, type: String, data: JSONValue? = nil) async throws -> SessionEventResult {
        try await send(.sendSessionEvent(SessionEventParams(sessionId: sessionId, type: type, data: data)))
            .decodeResult(SessionEventResult.self)
    }

    /// Rings `receiverIds` into the answered call `sessionId`; they get `onIncomingCallReceived`
    /// with `invitedBy`. Answers the call and which invitees it rings and which are busy.
    public func inviteToCall(_ sessionId: String, receiverIds: [String]) async throws -> InviteResult {
        try await send(.inviteToCall(InviteParams(sessionId: sessionId, receiverIds: receiverIds))).decodeResult(InviteResult.self)
    }

    /// Puts the call on hold on this user's side; the others hear `onCallHeld`.
    public func holdCall(_ sessionId: String) async throws -> Session {
        try await session(of: .holdCall(SessionParams(sessionId: sessionId)))
    }

    /// Takes the call off hold; the others hear `onCallResumed`.
    public func resumeCall(_ sessionId: String) async throws -> Session {
        try await session(of: .resumeCall(SessionParams(sessionId: sessionId)))
    }

    private func session(of request: ClientRequest) async throws -> Session {
        try await send(request).decodeResult(SessionResult.self).session
    }
}
