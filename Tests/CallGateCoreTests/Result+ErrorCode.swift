import CallGateCore
import CallGateProtocol

extension Result where Failure == CoreError {
    /// The error code of a failure.
    var errorCode: ErrorCode? {
        guard case .failure(let error) = self else { return nil }
        return error.code
    }
}
