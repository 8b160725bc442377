import CallGateProtocol

/// One push for the server to encode once and send to every listed connection.
///
/// A connection appears at most once, and the list is never empty.
public struct Delivery: Hashable, Sendable {
    /// What to send.
    public var push: Push
    /// Who gets it, in a stable order (by user, then by connection age).
    public var connections: [ConnectionID]

    /// Makes a delivery.
    public init(push: Push, connections: [ConnectionID]) {
        self.push = push
        self.connections = connections
    }
}
