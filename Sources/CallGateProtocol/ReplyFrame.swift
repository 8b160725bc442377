import Foundation

/// Encodes reply frames, as the server sends them.
public enum ReplyFrame {
    /// `{"id": id, "result": result}`.
    ///
    /// Precondition: `result` encodes without error, as every type of this module does.
    public static func success(id: String, result: some Encodable) -> Data {
        WireJSON.encode(SuccessReplyEnvelope(id: id, result: result))
    }

    /// `{"id": id, "error": {"code": code, "message": message}}`, without the `id` key when
    /// `id` is nil (the request was too broken to have one).
    public static func failure(id: String?, code: ErrorCode, message: String) -> Data {
        WireJSON.encode(FailureReplyEnvelope(id: id, error: ErrorBody(code: code, message: message)))
    }
}
