import CallGateProtocol

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
