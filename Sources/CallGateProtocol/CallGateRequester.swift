
/// Anything that sends requests of protocol v1 and waits for their replies: CallGateKit's
/// `CallGateConnection`, and the package's own test clients. The typed ops
/// (`CallGateRequester+Ops.swift`) are written once for all of them.
public protocol CallGateRequester: Sendable {
    /// Sends one request and waits for its reply; a server error comes back as `.failure`.
    func send(_ request: ClientRequest) async throws -> ReplyOutcome
}
