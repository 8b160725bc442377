/// A failure of the SQLite call log store, with a message an operator can act on.
///
/// GRDB's and SQLite's errors are wrapped in it so callers (the writer thread, the HTTP routes,
/// `serve` at startup) depend on this target only, and so the message names the file and what
/// was being done.
public struct SQLiteStoreError: Error, CustomStringConvertible, Sendable {
    /// What the store was doing.
    public enum Kind: Sendable, Hashable {
        /// Opening the file or configuring the connection.
        case open
        /// Checking or migrating the schema.
        case schema
        /// A write transaction.
        case write
        /// A read.
        case read
    }

    /// What the store was doing.
    public let kind: Kind
    /// What went wrong, naming the file.
    public let message: String

    /// Makes an error.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String {
        message
    }
}
