/// The routing fields of a server frame, read without decoding `result` or `data`.
struct ServerFrameHead: Decodable {
    private enum CodingKeys: String, CodingKey {
        case id, event, error, result
    }

    /// The reply id, if any.
    var id: String?
    /// The push event name, if this is a push.
    var event: String?
    /// The error body, if this is a failed reply.
    var error: ErrorBody?
    /// Whether the frame has a `result` key.
    var hasResult: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        event = try container.decodeIfPresent(String.self, forKey: .event)
        error = try container.decodeIfPresent(ErrorBody.self, forKey: .error)
        hasResult = container.contains(.result)
    }
}
