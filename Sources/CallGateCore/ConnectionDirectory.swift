import CallGateProtocol

/// Who is connected: connection -> user, and uid -> that user's connections, oldest first.
/// Service thread only.
struct ConnectionDirectory {
    private var users: [ConnectionID: User] = [:]
    private var devices: [String: [ConnectionID]] = [:]

    /// How many connections are registered.
    var count: Int { users.count }

    /// The user a connection authenticated as.
    func user(of connection: ConnectionID) -> User? {
        users[connection]
    }

    /// The connections of `uid`, oldest first.
    func connections(of uid: String) -> [ConnectionID] {
        devices[uid] ?? []
    }

    /// The user as their newest connection's token describes them.
    func profile(of uid: String) -> User? {
        devices[uid]?.last.flatMap { users[$0] }
    }

    /// Registers a connection that is not registered yet.
    mutating func add(_ connection: ConnectionID, as user: User) {
        users[connection] = user
        devices[user.uid, default: []].append(connection)
    }

    /// Unregisters a connection; returns its user, nil if it was not registered.
    mutating func remove(_ connection: ConnectionID) -> User? {
        guard let user = users.removeValue(forKey: connection) else { return nil }
        devices[user.uid]?.removeAll { $0 == connection }
        if devices[user.uid]?.isEmpty == true {
            devices[user.uid] = nil
        }
        return user
    }
}

/// The server's handle for one authenticated socket (one device of a user).
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number the server assigned; unique for the life of the process (in cluster mode,
    /// across the nodes: the node's number is in its high bits).
    public let rawValue: UInt64

    /// Wraps a server-assigned number.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders connections by their number, i.e. by when the server accepted them (of one node).
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The number in decimal, as logs and the wire's `connectionId` show it.
    public var description: String {
        String(rawValue)
    }
}
