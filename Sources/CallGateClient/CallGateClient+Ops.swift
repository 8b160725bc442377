import CallGateProtocol

/// Typed calls for each op of protocol v1. Each throws the server's `ErrorBody` when the gateway
/// answers with an error, and `CallGateClientError` when the socket fails.
extension CallGateClient {
    /// Authenticates this socket with a connection token.
    public func connect(token: String) async throws -> ConnectResult {
        try await send(.connect(ConnectParams(token: token))).decodeResult(ConnectResult.self)
    }

    /// Extends this socket's life with a newer connection token for the same user; send it
    /// before the current token's `tokenExpiresAt`, or the gateway closes the socket with 4003.
    public func refreshToken(_ token: String) async throws -> RefreshTokenResult {
        try await send(.refreshToken(RefreshTokenParams(token: token))).decodeResult(RefreshTokenResult.self)
    }

    /// Measures the round trip and reads the server's clock.
    public func ping() async throws -> PingResult {
        try await send(.ping).decodeResult(PingResult.self)
    }

    /// Rings a user or a group.
    public func initiateCall(
        to receiverId: String, receiverType: ReceiverType = .user, callType: CallType = .audio,
        timeout: Int? = nil, metadata: [String: JSONValue]? = nil
    ) async throws -> Call {
        let params = InitiateCallParams(
            receiverId: receiverId, receiverType: receiverType, callType: callType, timeout: timeout, metadata: metadata)
        return try await send(.initiateCall(params)).decodeResult(Call.self)
    }

    /// Answers a ringing call.
    public func acceptCall(_ sessionId: String) async throws -> Call {
        try await send(.acceptCall(SessionParams(sessionId: sessionId))).decodeResult(Call.self)
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
