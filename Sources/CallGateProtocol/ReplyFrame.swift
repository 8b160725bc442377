import Foundation

/// Encodes reply frames, as the server sends them. Total: whatever the value, the result is a
/// frame to send, never a trap.
public enum ReplyFrame {
    /// `{"id": id, "result": result}`, written by `JSONWriter` when `result` is `JSONWritable`
    /// (a call, a ping), else by Foundation's encoder; when that cannot encode `result` (see
    /// `WireJSON.encode`), the `ERR_INTERNAL` error reply to `id` instead.
    public static func success(id: String, result: some Encodable) -> Data {
        if let writable = result as? any JSONWritable {
            var json = JSONWriter()
            json.raw(#"{"id":"#)
            json.string(id)
            json.raw(#","result":"#)
            json.value(writable)
            json.raw("}")
            return json.data
        }
        do {
            return try WireJSON.encode(SuccessReplyEnvelope(id: id, result: result))
        } catch {
            return failure(id: id, code: .internal, message: "the result could not be encoded")
        }
    }

    /// `{"error": {"code": code, "message": message}, "id": id}`, without the `id` key when
    /// `id` is nil (the request was too broken to have one).
    public static func failure(id: String?, code: ErrorCode, message: String) -> Data {
        var json = JSONWriter()
        json.raw(#"{"error":"#)
        json.value(ErrorBody(code: code, message: message))
        if let id {
            json.raw(#","id":"#)
            json.string(id)
        }
        json.raw("}")
        return json.data
    }
}

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

/// The `{"id", "result"}` shape of a successful reply.
struct SuccessReplyEnvelope<Result: Encodable>: Encodable {
    /// The request's id.
    var id: String
    /// The op's result.
    var result: Result
}

/// Reads only the `result` of a successful reply frame.
struct ResultEnvelope<Result: Decodable>: Decodable {
    /// The op's result.
    var result: Result
}
