import CallGateClient
import CallGateProtocol
import Testing

/// The basic 1:1 call, start to end, as the edge tests run it over TLS and through a proxy.
extension CallGateClient {
    /// Rings `callee` (the only device of `calleeUID`), has it accept, hangs up from this side,
    /// and checks every push on the way; returns the ended call.
    func ringAcceptAndEnd(_ callee: CallGateClient, calleeUID: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> Call
    {
        let call = try await establishCall(with: callee, uid: calleeUID, sourceLocation: sourceLocation)
        #expect(call.callStatus == .ongoing, sourceLocation: sourceLocation)
        let ended = try await endCall(call.sessionId)
        #expect(ended.callStatus == .ended, sourceLocation: sourceLocation)
        guard case .callEndedMessageReceived(let heard, _, .hungUp) = try await callee.expectPush() else {
            Issue.record("the callee did not hear the hang-up", sourceLocation: sourceLocation)
            throw ExpectationFailure()
        }
        #expect(heard == ended, sourceLocation: sourceLocation)
        return ended
    }
}
