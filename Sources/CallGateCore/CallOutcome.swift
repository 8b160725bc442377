import CallGateProtocol

/// What a call op produced: the reply for the acting connection and the pushes for the others.
///
/// The server sends the reply first, then the deliveries in order.
public struct CallOutcome: Hashable, Sendable {
    /// The call as it stands after the op, or why the op was refused.
    public var reply: Result<Call, CoreError>
    /// Pushes to send after the reply; empty when the op was refused.
    public var deliveries: [Delivery]

    /// Makes an outcome.
    public init(reply: Result<Call, CoreError>, deliveries: [Delivery]) {
        self.reply = reply
        self.deliveries = deliveries
    }

    /// Runs an op; a thrown `CoreError` becomes the error reply, with no pushes.
    static func attempt(_ op: () throws(CoreError) -> CallOutcome) -> CallOutcome {
        do {
            return try op()
        } catch {
            return CallOutcome(reply: .failure(error), deliveries: [])
        }
    }
}
