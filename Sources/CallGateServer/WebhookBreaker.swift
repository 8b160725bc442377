/// One endpoint's circuit breaker: after `threshold` failed attempts in a row (no answer, or a
/// 5xx or 429 answer) the endpoint is left alone for a cooldown; then one probe is let through
/// (half-open): an answer closes the breaker, a failure opens it again for twice as long, up to
/// `maxCooldown`. Other endpoints go on meanwhile: the breaker only holds its own back.
///
/// Pure: times are the caller's Unix ms. Lives on the dispatcher thread.
struct WebhookBreaker {
    /// Where the breaker stands.
    enum State: Equatable {
        /// Attempts go out; `failures` in a row so far.
        case closed(failures: Int)
        /// No attempt goes out until `until`; the cooldown that got it there.
        case open(until: Int64, cooldown: Int64)
        /// One probe may go out; `probing` while it is in flight. `cooldown` is the last one.
        case halfOpen(probing: Bool, cooldown: Int64)
    }

    /// Failed attempts in a row that open it.
    let threshold: Int
    /// The first cooldown, ms.
    let cooldown: Int64
    /// The longest cooldown, ms.
    let maxCooldown: Int64
    private(set) var state = State.closed(failures: 0)

    /// A breaker opening after `threshold` failures for `cooldown` ms at first.
    init(threshold: Int, cooldown: Int64, maxCooldown: Int64) {
        self.threshold = threshold
        self.cooldown = cooldown
        self.maxCooldown = max(cooldown, maxCooldown)
    }

    /// How many attempts may start at `now`, with `inFlight` going and `share` the endpoint's
    /// budget. An open breaker whose cooldown passed turns half-open here.
    mutating func room(share: Int, inFlight: Int, at now: Int64) -> Int {
        if case .open(let until, let cooldown) = state, now >= until {
            state = .halfOpen(probing: false, cooldown: cooldown)
        }
        switch state {
        case .closed: return max(0, share - inFlight)
        case .open: return 0
        case .halfOpen(let probing, _): return probing || inFlight > 0 ? 0 : 1
        }
    }

    /// `count` attempts started (a half-open breaker's probe among them).
    mutating func started(_ count: Int) {
        if count > 0, case .halfOpen(_, let cooldown) = state {
            state = .halfOpen(probing: true, cooldown: cooldown)
        }
    }

    /// An attempt ended at `now`; `failed` when it counts against the endpoint.
    mutating func ended(failed: Bool, at now: Int64) {
        guard failed else {
            state = .closed(failures: 0)
            return
        }
        switch state {
        case .closed(let failures):
            state = failures + 1 >= threshold ? .open(until: now + cooldown, cooldown: cooldown) : .closed(failures: failures + 1)
        case .open:
            break
        case .halfOpen(_, let last):
            let next = min(maxCooldown, last * 2)
            state = .open(until: now + next, cooldown: next)
        }
    }

    /// When an open breaker lets a probe through, Unix ms; nil unless open.
    var reopensAt: Int64? {
        if case .open(let until, _) = state { until } else { nil }
    }

    /// The state as the `callgate_webhook_endpoint_breaker` gauge says it: 0 closed, 1 half-open,
    /// 2 open.
    var gaugeValue: Int {
        switch state {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}
