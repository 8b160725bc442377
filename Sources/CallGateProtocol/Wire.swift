import Foundation

/// Where and how protocol v1 is spoken: the WebSocket path and subprotocol, shared by the
/// gateway and every client.
public enum WireEndpoint {
    /// The path of the WebSocket endpoint.
    public static let path = "/ws"
    /// The WebSocket subprotocol (a handshake without one is accepted too).
    public static let subprotocol = "callgate.v1"
}

/// The one JSON configuration every frame of the protocol uses: compact, unescaped slashes and
/// sorted keys, so equal values always give equal bytes.
///
/// Foundation's JSONEncoder and JSONDecoder are safe to share once configured.
enum WireJSON {
    /// The shared encoder.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The shared decoder.
    static let decoder = JSONDecoder()

    /// Encodes a frame or a value of one. The types of this module encode totally once their
    /// free-form parts are within `JSONNesting.maxDepth` (non-finite numbers in `JSONValue`
    /// become `null`), which decoding enforces; a failure anyway is thrown, never trapped on, so
    /// a value derived from input can cost at most an error reply.
    static func encode(_ value: some Encodable) throws(FrameEncodingError) -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw FrameEncodingError(description: "\(error)")
        }
    }
}

/// A value of the protocol could not be encoded as JSON.
public struct FrameEncodingError: Error, Hashable, Sendable {
    /// Foundation's reason.
    public var description: String
}
