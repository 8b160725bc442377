import Foundation

/// A frame from the server, as a client reads it: a reply to one of its requests or a push.
public enum ServerFrame: Hashable, Sendable {
    /// A reply; `id` is nil only when the request was too broken to have an id.
    case reply(id: String?, outcome: ReplyOutcome)
    /// A push; `seq` is its number in the user's push sequence (nil when the frame has none),
    /// `raw` the whole push frame: read its data with `decodePushData` or turn it into a typed
    /// `Push` with `Push(event:frame:)`.
    case push(event: String, seq: UInt64?, raw: Data)
}

/// The routing fields of a server frame, read without decoding `result` or `data`.
struct ServerFrameHead: Decodable {
    private enum CodingKeys: String, CodingKey {
        case id, event, seq, error, result
    }

    /// The reply id, if any.
    var id: String?
    /// The push event name, if this is a push.
    var event: String?
    /// The push's number in its user's sequence.
    var seq: UInt64?
    /// The error body, if this is a failed reply.
    var error: ErrorBody?
    /// Whether the frame has a `result` key.
    var hasResult: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        event = try container.decodeIfPresent(String.self, forKey: .event)
        seq = try container.decodeIfPresent(UInt64.self, forKey: .seq)
        error = try container.decodeIfPresent(ErrorBody.self, forKey: .error)
        hasResult = container.contains(.result)
    }
}

extension ServerFrame {
    /// Classifies one frame from the server. Throws `DecodingError` when it is not JSON or is
    /// neither a push (`event`) nor a reply (`error` or `result`), or when it nests deeper than
    /// `JSONNesting.maxDepth` (a client does not trust its server's input either).
    public static func decode(_ data: Data) throws -> ServerFrame {
        guard !JSONNesting.exceeds(JSONNesting.maxDepth, in: data) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "frame nests deeper than \(JSONNesting.maxDepth) levels"))
        }
        let head = try WireJSON.decoder.decode(ServerFrameHead.self, from: data)
        if let event = head.event {
            return .push(event: event, seq: head.seq, raw: data)
        }
        if let error = head.error {
            return .reply(id: head.id, outcome: .failure(error))
        }
        guard head.hasResult else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "frame has neither event, error nor result"))
        }
        return .reply(id: head.id, outcome: .success(raw: data))
    }

    /// The `data` of a push frame (`raw` of `.push`) as `type`, e.g. `IncomingCallReceivedData`.
    public static func decodePushData<Payload: Codable>(_ type: Payload.Type, from raw: Data) throws -> Payload {
        try WireJSON.decoder.decode(PushEnvelope<Payload>.self, from: raw).data
    }
}
