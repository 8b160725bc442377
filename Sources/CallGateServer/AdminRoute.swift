/// What the transport does with an admin request, as decided by ``AdminRouter/route(_:)``.
public enum AdminRoute: Sendable {
    /// Write this response now.
    case respond(HTTPResponse)
    /// Mint a token off the service thread with
    /// ``AdminRouter/tokenResponse(for:using:now:)``, then write its response.
    case mintToken(TokenRequest)
    /// Attach a recording's file URL in the store, off the service thread, then answer with
    /// ``AdminRouter/recordingResponse(_:sessionId:rid:url:)``.
    case attachRecording(sessionId: String, rid: String, url: String, startedAt: Int64?)
}
