/// The few fields of one server frame that the generator acts on, as byte ranges into the frame.
///
/// Read by `FrameScanner` without decoding the frame into objects, so that a received push costs
/// one pass over its bytes and no allocation. Service thread of the bench loop.
public struct FrameFields {
    /// The whole frame as received.
    public let bytes: [UInt8]
    /// The top-level `id` string (a reply), without quotes.
    public var id: Range<Int>?
    /// The top-level `event` string (a push), without quotes.
    public var event: Range<Int>?
    /// `error.code` of a failed reply, without quotes.
    public var errorCode: Range<Int>?
    /// The first `sessionId` string found at any depth (a call's id in call pushes and replies).
    public var sessionId: Range<Int>?
    /// Whether the frame has a top-level `result`.
    public var hasResult = false
    /// Whether the frame was well-formed enough to walk to its end.
    public var isReadable = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The first byte of the id, which names the request kind (see `RequestKind`).
    public var idPrefix: UInt8? {
        guard let id, !id.isEmpty else { return nil }
        return bytes[id.lowerBound]
    }

    /// Whether the push's event name is exactly `name`.
    public func eventIs(_ name: [UInt8]) -> Bool {
        guard let event else { return false }
        return bytes[event].elementsEqual(name)
    }

    /// The session id's bytes, empty when the frame has none.
    public var sessionIdBytes: ArraySlice<UInt8> {
        sessionId.map { bytes[$0] } ?? []
    }

    /// The error code as text (an allocation; errors are rare).
    public var errorCodeText: String? {
        errorCode.map { String(decoding: bytes[$0], as: UTF8.self) }
    }
}
