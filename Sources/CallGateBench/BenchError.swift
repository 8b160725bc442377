/// Why a bench run could not start or run (bad options, fd limit, server unreachable, auth
/// refused); `message` is one line for a person.
public struct BenchError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The reason, one line.
    public let message: String

    /// An error with this reason.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
