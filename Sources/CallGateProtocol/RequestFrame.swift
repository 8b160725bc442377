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
