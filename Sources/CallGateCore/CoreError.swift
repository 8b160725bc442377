import CallGateProtocol

/// Why the core refused an op: the code and message of the error reply the server sends.
public struct CoreError: Error, Hashable, Sendable {
    /// The wire error code.
    public var code: ErrorCode
    /// A human-readable explanation.
    public var message: String

    /// Makes a core error.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}
