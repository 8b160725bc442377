import Foundation

/// A request frame `{"id", "op", "data"}`: what a client sends and the server decodes.
public struct RequestFrame: Hashable, Sendable {
    /// The longest id a frame may carry, in UTF-8 bytes (any characters).
    public static let maxIDLength = 64

    /// The client's correlation id, echoed in the reply.
    public var id: String
    /// The op and its params.
    public var request: ClientRequest

    /// Makes a request frame.
    public init(id: String, request: ClientRequest) {
        self.id = id
        self.request = request
    }
}

extension RequestFrame {
    /// How much of an unknown op name an error message quotes.
    private static let quotedOpLength = 64

    /// Decodes one request frame, as the server receives it.
    ///
    /// A missing or `null` `data` counts as `{}`; unknown fields are ignored. Every failure says
    /// which field was wrong and carries the frame's id whenever a valid one (a string of 1 to 64
    /// UTF-8 bytes) could be read, so the server can echo it in the `ERR_BAD_REQUEST` reply. A
    /// frame nesting arrays and objects deeper than `JSONNesting.maxDepth` is refused before
    /// anything deeper is built. `JSONParser` reads the text.
    public static func decode(_ bytes: some Collection<UInt8>) throws(FrameDecodingError) -> RequestFrame {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, maxDepth: JSONNesting.maxDepth)
        } catch .tooDeep {
            throw FrameDecodingError(id: nil, message: "frame is not UTF-8 JSON nesting at most \(JSONNesting.maxDepth) levels")
        } catch {
            throw FrameDecodingError(id: nil, message: "frame is not valid JSON")
        }
        guard case .object(let fields) = root else {
            throw FrameDecodingError(id: nil, message: "frame: expected a JSON object")
        }
        guard case .string(let id)? = fields["id"], (1...maxIDLength).contains(id.utf8.count) else {
            throw FrameDecodingError(id: nil, message: "id: expected a string of 1 to \(maxIDLength) UTF-8 bytes")
        }
        guard case .string(let opName)? = fields["op"] else {
            throw FrameDecodingError(id: id, message: "op: expected a string")
        }
        guard let op = Op(rawValue: opName) else {
            throw FrameDecodingError(id: id, message: "unknown op '\(opName.prefix(quotedOpLength))'")
        }
        let params: [String: JSONValue]
        switch fields["data"] {
        case nil, .null?:
            params = [:]
        case .object(let object)?:
            params = object
        default:
            throw FrameDecodingError(id: id, message: "data: expected an object")
        }
        let request = try ClientRequest(op: op, reading: FrameFieldReader(id: id, fields: params))
        return RequestFrame(id: id, request: request)
    }
}

extension RequestFrame: Encodable {
    private enum CodingKeys: String, CodingKey {
        case id, op, data
    }

    private struct EmptyObject: Encodable {}

    /// Writes `{"id", "op", "data"}`; `ping` carries an empty `data` object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(request.op, forKey: .op)
        switch request {
        case .connect(let params):
            try container.encode(params, forKey: .data)
        case .refreshToken(let params):
            try container.encode(params, forKey: .data)
        case .ping:
            try container.encode(EmptyObject(), forKey: .data)
        case .initiateCall(let params):
            try container.encode(params, forKey: .data)
        case .acceptCall(let params), .confirmRinging(let params), .endCall(let params), .generateToken(let params),
             .leaveSession(let params), .startRecording(let params), .stopRecording(let params),
             .switchToVideo(let params), .holdCall(let params), .resumeCall(let params):
            try container.encode(params, forKey: .data)
        case .rejectCall(let params):
            try container.encode(params, forKey: .data)
        case .joinSession(let params):
            try container.encode(params, forKey: .data)
        case .setMuted(let params):
            try container.encode(params, forKey: .data)
        case .markCallsSeen(let params):
            try container.encode(params, forKey: .data)
        case .muteParticipant(let params), .removeParticipant(let params):
            try container.encode(params, forKey: .data)
        case .sendSessionEvent(let params):
            try container.encode(params, forKey: .data)
        case .inviteToCall(let params):
            try container.encode(params, forKey: .data)
        }
    }

    /// The frame as compact JSON, ready to send as one text message.
    public func encoded() throws(FrameEncodingError) -> Data {
        try WireJSON.encode(self)
    }
}

/// Why a request frame could not be turned into a `RequestFrame`. The server answers it with
/// `ERR_BAD_REQUEST` and keeps the socket open.
public struct FrameDecodingError: Error, Hashable, Sendable {
    /// The frame's id, whenever it had a readable string id of 1 to 64 UTF-8 bytes, so the error
    /// reply can echo it; nil when the frame was too broken to have one.
    public var id: String?
    /// What was wrong, naming the field (e.g. `data.callType: expected one of audio, video`).
    public var message: String

    /// Makes a decoding error.
    public init(id: String?, message: String) {
        self.id = id
        self.message = message
    }
}
