import Foundation

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
        case .acceptCall(let params), .endCall(let params), .generateToken(let params),
             .leaveSession(let params), .startRecording(let params), .stopRecording(let params),
             .switchToVideo(let params):
            try container.encode(params, forKey: .data)
        case .rejectCall(let params):
            try container.encode(params, forKey: .data)
        case .joinSession(let params):
            try container.encode(params, forKey: .data)
        case .setMuted(let params):
            try container.encode(params, forKey: .data)
        }
    }

    /// The frame as compact JSON, ready to send as one text message.
    public func encoded() throws(FrameEncodingError) -> Data {
        try WireJSON.encode(self)
    }
}
