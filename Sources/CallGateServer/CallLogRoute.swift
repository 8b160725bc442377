/// What the transport does with a call log request, as decided by `CallLogRouter.route(_:)`.
public enum CallLogRoute: Sendable {
    /// Write this response now (a bad request, a missing token, a wrong method).
    case respond(HTTPResponse)
    /// Check `token`, then answer with a page of its user's calls.
    case list(token: String, CallLogListRequest)
    /// Check `token`, then answer with its user's calls under `sessionId`.
    case detail(token: String, sessionId: String)
}
