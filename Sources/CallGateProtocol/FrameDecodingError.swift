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
