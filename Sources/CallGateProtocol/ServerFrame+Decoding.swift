import Foundation

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
            return .push(event: event, raw: data)
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
