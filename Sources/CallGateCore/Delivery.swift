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

/// Collects the deliveries of one op or timer run, dropping pushes that reach nobody.
struct DeliveryList {
    /// The deliveries so far, in the order they were added.
    private(set) var deliveries: [Delivery] = []

    /// Adds `push` for `connections` unless there are none.
    mutating func send(_ push: Push, to connections: [ConnectionID]) {
        guard !connections.isEmpty else { return }
        deliveries.append(Delivery(push: push, connections: connections))
    }
}
