import CallGateCore

/// What the enabled webhook endpoints make of the Core's events: whether any is reported at all,
/// and whether a `call.ringing` event reaches one, so the backend wakes a callee with no device
/// (the caller's ring progress counts them as `waking`). Read from the endpoints whenever they
/// change; given to the Core on the service thread.
struct WebhookReach: Equatable, Sendable {
    /// Some endpoint is enabled: the Core reports webhook events.
    let reportsEvents: Bool
    /// Some enabled endpoint wants `call.ringing`: a callee with no device is woken by a push.
    let wakesCallees: Bool

    /// The reach of `endpoints`.
    init(_ endpoints: [WebhookEndpoint]) {
        let enabled = endpoints.filter(\.enabled)
        reportsEvents = !enabled.isEmpty
        wakesCallees = enabled.contains { $0.wants(.callRinging) }
    }

    /// Sets the Core's flags to this reach.
    func apply(to core: GatewayCore) {
        core.reportsWebhookEvents = reportsEvents
        core.wakesCalleesByPush = wakesCallees
    }
}
