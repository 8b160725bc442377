import CallGateProtocol

/// What a session op produced: the reply for the acting connection and the pushes for the others.
///
/// The server sends the reply (as `{"session": ...}`) first, then the deliveries in order.
public struct SessionOutcome: Hashable, Sendable {
    /// The session as it stands after the op, or why the op was refused.
    public var reply: Result<Session, CoreError>
    /// Pushes to send after the reply; empty when the op was refused.
    public var deliveries: [Delivery]

    /// Makes an outcome.
    public init(reply: Result<Session, CoreError>, deliveries: [Delivery]) {
        self.reply = reply
        self.deliveries = deliveries
    }

    /// Runs an op; a thrown `CoreError` becomes the error reply, with no pushes.
    static func attempt(_ op: () throws(CoreError) -> SessionOutcome) -> SessionOutcome {
        do {
            return try op()
        } catch {
            return SessionOutcome(reply: .failure(error), deliveries: [])
        }
    }
}
