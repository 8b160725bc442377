import CallGateCore
import CallGateProtocol

extension SessionOutcome {
    /// The session of a successful reply.
    var session: Session? {
        try? reply.get()
    }

    /// The error code of a failed reply.
    var errorCode: ErrorCode? {
        guard case .failure(let error) = reply else { return nil }
        return error.code
    }
}
