import CallGateCore

/// One enabled endpoint as the dispatcher serves it: its attempts in flight, its circuit breaker
/// and its route (own HTTP client). Each endpoint's queue is its own, in the store; the lane
/// says how many deliveries of it may be claimed now, so a slow endpoint only fills its own
/// share of `--webhook-concurrency`.
///
/// The dispatcher thread's; the route is used by the attempts, on any thread.
struct WebhookLane {
    /// The endpoint as the store last said.
    var endpoint: WebhookEndpoint
    /// Attempts started and not ended yet.
    var inFlight = 0
    var breaker: WebhookBreaker
    let route: WebhookRoute

    /// A lane for `endpoint`, with a closed breaker.
    init(endpoint: WebhookEndpoint, configuration: WebhookConfiguration) {
        self.endpoint = endpoint
        breaker = WebhookBreaker(
            threshold: configuration.breakerFailures, cooldown: configuration.breakerCooldown.wholeMilliseconds,
            maxCooldown: WebhookConfiguration.maxBreakerCooldown.wholeMilliseconds)
        route = WebhookRoute(configuration: configuration)
    }

    /// How many deliveries may be claimed at `now` with `share` the endpoint's budget.
    mutating func room(share: Int, at now: Int64) -> Int {
        breaker.room(share: share, inFlight: inFlight, at: now)
    }

    /// `count` attempts started.
    mutating func started(_ count: Int) {
        inFlight += count
        breaker.started(count)
    }

    /// An attempt ended at `now`; `failed` when it counts against the endpoint.
    mutating func ended(failed: Bool, at now: Int64) {
        inFlight = max(0, inFlight - 1)
        breaker.ended(failed: failed, at: now)
    }
}
