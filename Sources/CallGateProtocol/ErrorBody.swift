/// The `error` object of a failed reply: a code for programs and a message for people.
///
/// It is also a Swift `Error`, so client code can throw what the server answered.
public struct ErrorBody: Codable, Hashable, Sendable, Error {
    /// What went wrong, as a stable code.
    public var code: ErrorCode
    /// A human-readable explanation, naming the offending field where there is one.
    public var message: String

    /// Makes an error body.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}
