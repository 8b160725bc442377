/// The `data` of a `rejectCall` request.
public struct RejectCallParams: Codable, Hashable, Sendable {
    /// The call's session id.
    public var sessionId: String
    /// `rejected` or `busy` from a callee, `cancelled` from the caller.
    public var status: RejectStatus

    /// Makes reject params.
    public init(sessionId: String, status: RejectStatus) {
        self.sessionId = sessionId
        self.status = status
    }
}
