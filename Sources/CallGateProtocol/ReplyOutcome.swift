import Foundation

/// How the server answered a request.
public enum ReplyOutcome: Hashable, Sendable {
    /// The op succeeded; `raw` is the whole reply frame, read its result with `decodeResult`.
    case success(raw: Data)
    /// The op failed with this error.
    case failure(ErrorBody)

    /// The reply's `result` as `type`; throws the `ErrorBody` of a failed reply, or a
    /// `DecodingError` when the result does not match `type`.
    public func decodeResult<Result: Decodable>(_ type: Result.Type) throws -> Result {
        switch self {
        case .success(let raw):
            try WireJSON.decoder.decode(ResultEnvelope<Result>.self, from: raw).result
        case .failure(let body):
            throw body
        }
    }
}
