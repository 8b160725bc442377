/// The server's handle for one authenticated socket (one device of a user).
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number the server assigned; unique for the life of the process.
    public let rawValue: UInt64

    /// Wraps a server-assigned number.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders connections by their number, i.e. by when the server accepted them.
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The number in decimal, as logs and the wire's `connectionId` show it.
    public var description: String {
        String(rawValue)
    }
}
