/// Why the PostgreSQL store could not do something, in words an operator can act on. PostgresNIO's
/// own errors describe themselves generically on purpose (they may carry data); the SQLSTATE and
/// the server's message are kept here, never a statement's bound values.
public struct PostgresStoreError: Error, CustomStringConvertible, Sendable {
    /// What the store was doing.
    public enum Kind: Sendable {
        /// Connecting or migrating at start.
        case open
        /// A write transaction.
        case write
        /// A read.
        case read
        /// No connection within the lease timeout: the server is down or unreachable.
        case unavailable
    }

    public let kind: Kind
    public let description: String
}
