import Foundation

/// Encodes reply frames, as the server sends them. Total: whatever the value, the result is a
/// frame to send, never a trap.
public enum ReplyFrame {
    /// `{"id": id, "result": result}`; when `result` cannot be encoded (see `WireJSON.encode`),
    /// the `ERR_INTERNAL` error reply to `id` instead.
    public static func success(id: String, result: some Encodable) -> Data {
        do {
            return try WireJSON.encode(SuccessReplyEnvelope(id: id, result: result))
        } catch {
            return failure(id: id, code: .internal, message: "the result could not be encoded")
        }
    }

    /// `{"id": id, "error": {"code": code, "message": message}}`, without the `id` key when
    /// `id` is nil (the request was too broken to have one).
    public static func failure(id: String?, code: ErrorCode, message: String) -> Data {
        do {
            return try WireJSON.encode(FailureReplyEnvelope(id: id, error: ErrorBody(code: code, message: message)))
        } catch {
            return Data(#"{"error":{"code":"ERR_INTERNAL","message":"the reply could not be encoded"}}"#.utf8)
        }
    }
}
