import CallGateCore
import Foundation
import LWS
import Logging

/// Claims due deliveries from the outbox and POSTs them, signed, on a thread of its own:
/// nothing here runs on the service thread, so a slow or dead receiver never delays a ring.
///
/// Every node of a cluster runs one over the shared outbox. A delivery is claimed in the store
/// for `claimLease` by this run (`holder`), attempted, and its result recorded under the claim:
/// two nodes never attempt one delivery at once, and a result whose claim lapsed (the node froze)
/// is dropped, not written over a newer one. Each attempt is recorded before the next delivery
/// of the same session to the same endpoint is due (the outbox holds it back while the earlier
/// one is pending), so per call events arrive in order, across nodes too. A delivery whose
/// attempt was never recorded (the node died) is claimed again once the lease lapses: at least
/// once, with the same `webhook-id`.
///
/// Each enabled endpoint is a `WebhookLane`: its own share of `--webhook-concurrency`, its own
/// circuit breaker and HTTP client, so an endpoint that never answers holds up no other. The
/// endpoints are read from the store every second (and at once after `endpointsChanged`): a
/// change made on any node reaches every node. Attempts (`WebhookPoster`) are tasks on
/// AsyncHTTPClient's event loop; memory holds only those (every payload waits in the store).
///
/// The thread sleeps until a delivery may be due, an attempt ends, or `wake` is called (a commit
/// that wrote events). It also gives up deliveries past the retry period or beyond their
/// endpoint's backlog cap, prunes finished ones past their retention and publishes the backlog
/// metrics. When the store refuses, it backs off (100 ms doubling to 5 s), logging once per
/// change of state.
final class WebhookDispatcher: @unchecked Sendable {
    private let outbox: any WebhookOutbox
    private let configuration: WebhookConfiguration
    private let clock: any CoreClock
    private let metrics: WebhookMetrics
    private let logger: Logger
    /// Makes each attempt.
    private let poster: WebhookPoster
    /// This node's id (`local` for a single process), whose earlier runs' claims are released
    /// at start; and whether other nodes share the outbox: then a start makes only this node's
    /// own deliveries due at once, not every node's.
    private let resumption: (node: String, clustered: Bool)
    /// Who this run's claims are held by: `node/run`.
    let holder: String

    /// Guards `inbox`.
    private let condition = NSCondition()
    /// What other threads tell the dispatcher thread, under `condition`.
    private var inbox = Inbox()
    private let finished = DispatchSemaphore(value: 0)

    // The dispatcher thread's own.
    private var lanes: [String: WebhookLane] = [:]
    private var unrecorded: [WebhookAttempt] = []
    /// Tells the service whether some endpoint is enabled, when that changes.
    private var activity: Activity
    /// When the endpoints were last read and the house last kept, and how many rounds in a row
    /// the store refused.
    private var rounds = Rounds()

    /// Starts the dispatcher thread over `outbox` as `node` (`clustered`: one of several nodes
    /// sharing it); pending deliveries are attempted at once.
    init(
        outbox: any WebhookOutbox, configuration: WebhookConfiguration, node: String, clustered: Bool,
        clock: any CoreClock, metrics: WebhookMetrics, logger: Logger,
        onReachChanged: @escaping @Sendable (WebhookReach) -> Void
    ) {
        self.outbox = outbox
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        resumption = (node, clustered)
        poster = WebhookPoster(configuration: configuration, clock: clock, metrics: metrics, logger: logger)
        activity = Activity(report: onReachChanged)
        holder = WebhookClaim.holder(node: node, run: String(UInt64.random(in: 0...UInt64.max), radix: 36))
        let thread = Thread { [self] in
            ThreadName.set("cg-webhooks")
            run()
        }
        thread.name = "cg-webhooks"
        thread.start()
    }

    /// Something may be due now: look at the outbox again. Any thread; returns at once.
    func wake() {
        condition.lock()
        inbox.woken = true
        condition.signal()
        condition.unlock()
    }

    /// The endpoints changed (here or, announced on the bus, on another node): read them again
    /// now. Any thread; returns at once.
    func endpointsChanged() {
        condition.lock()
        inbox.woken = true
        inbox.rereadRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Stops claiming, gives the attempts in flight up to `timeout` to end, shuts the HTTP
    /// clients down (which cancels the attempts still going: none can post after its claim is
    /// let go), records the attempts that ended and lets go of the other claims (those deliveries
    /// are due again at once, for any node). Any thread but the dispatcher's; blocks until done.
    func stop(timeout: Duration = .seconds(2)) {
        condition.lock()
        inbox.stopping = true
        condition.signal()
        condition.unlock()
        finished.wait()
        let deadline = Date.now.addingTimeInterval(Double(timeout.wholeMilliseconds) / 1000)
        condition.lock()
        while inbox.inFlight > 0, condition.wait(until: deadline) {}
        condition.unlock()
        for lane in lanes.values {
            lane.route.shutdown()
        }
        condition.lock()
        let last = inbox.ended
        inbox.ended.removeAll()
        condition.unlock()
        _ = try? outbox.recordWebhookAttempts(unrecorded + last.map(\.attempt), holder: holder)
        try? outbox.releaseWebhookClaims(holder: holder)
    }

    private func run() {
        resume()
        while true {
            condition.lock()
            if inbox.stopping {
                condition.unlock()
                break
            }
            let justEnded = inbox.ended
            inbox.ended.removeAll()
            let reread = inbox.rereadRequested
            inbox.rereadRequested = false
            inbox.woken = false
            condition.unlock()
            let now = clock.nowMillis()
            for attempt in justEnded {
                unrecorded.append(attempt.attempt)
                guard let route = lanes[attempt.endpointID]?.route, ObjectIdentifier(route) == attempt.route else { continue }
                change(attempt.endpointID) { $0.ended(failed: attempt.failed, at: now) }
            }
            do {
                try serve(now: now, reread: reread)
                if rounds.storeFailures > 0 {
                    logger.notice("webhook outbox available again", metadata: ["failures": "\(rounds.storeFailures)"])
                    rounds.storeFailures = 0
                }
            } catch {
                rounds.storeFailures += 1
                metrics.storeFailed()
                if rounds.storeFailures == 1 {
                    logger.error("webhook outbox unavailable; backing off", metadata: ["error": "\(error)"])
                }
                if reread {
                    condition.lock()
                    inbox.rereadRequested = true
                    condition.unlock()
                }
                backOff(milliseconds: Self.backoff(after: rounds.storeFailures))
            }
        }
        finished.signal()
    }

    /// One round at `now`: records what ended, reads the endpoints when due, keeps house, claims
    /// what each lane has room for and starts it, then sleeps until something may be due.
    /// Throws when the store refuses.
    private func serve(now: Int64, reread: Bool) throws {
        if !unrecorded.isEmpty {
            try outbox.recordWebhookAttempts(unrecorded, holder: holder)
            unrecorded.removeAll()
        }
        if reread || rounds.lastReread.map({ now - $0 >= 1_000 }) ?? true {
            try readEndpoints()
            rounds.lastReread = now
        }
        if rounds.lastHousekeeping.map({ now - $0 >= 5_000 }) ?? true {
            try housekeep(now: now)
            rounds.lastHousekeeping = now
        }
        let share = configuration.share(among: lanes.count)
        var room: [String: Int] = [:]
        for id in lanes.keys {
            if let free = change(id, { $0.room(share: share, at: now) }), free > 0 {
                room[id] = free
            }
        }
        let claimed = try outbox.claimWebhookDeliveries(WebhookClaim(
            holder: holder, now: now, until: now + configuration.claimLease.wholeMilliseconds, room: room))
        start(claimed)
        for delivery in claimed {
            room[delivery.endpoint.id, default: 1] -= 1
        }
        let waiting = Set(room.filter { $0.value > 0 }.keys)
        var next = try outbox.nextWebhookAttempt(endpoints: waiting)
        for lane in lanes.values {
            if let reopens = lane.breaker.reopensAt {
                next = min(next ?? reopens, reopens)
            }
        }
        sleep(until: next)
    }

    /// Starts an attempt for each of `deliveries`, counted in its lane.
    private func start(_ deliveries: [WebhookDelivery]) {
        for delivery in deliveries {
            // Claimed for a lane it has: the claims name no other endpoint.
            guard let route = change(delivery.endpoint.id, { lane in
                lane.started(1)
                return lane.route
            }) else { continue }
            condition.lock()
            inbox.inFlight += 1
            condition.unlock()
            Task { [self] in
                end(await poster.post(delivery, through: route))
            }
        }
    }

    /// Reads the endpoints: a lane for each enabled one (its breaker kept across reads, its
    /// route new when its URL changed), none for the others; tells the service when whether any
    /// is enabled changed.
    private func readEndpoints() throws {
        let endpoints = try outbox.webhookEndpoints()
        let enabled = endpoints.filter(\.enabled)
        var next: [String: WebhookLane] = [:]
        for endpoint in enabled {
            if var lane = lanes.removeValue(forKey: endpoint.id), lane.endpoint.url == endpoint.url {
                lane.endpoint = endpoint
                next[endpoint.id] = lane
            } else {
                next[endpoint.id] = WebhookLane(endpoint: endpoint, configuration: configuration)
            }
        }
        for lane in lanes.values {
            lane.route.retire()
        }
        lanes = next
        activity.set(WebhookReach(endpoints))
    }

    /// Lets go of the claims of this node's earlier runs, due now, and, for a single process,
    /// makes every pending delivery due now; retries while the store refuses.
    private func resume() {
        var delay = 0.1
        while true {
            do {
                try outbox.resumeWebhookDeliveries(at: clock.nowMillis(), node: resumption.node, everyPending: !resumption.clustered)
                return
            } catch {
                logger.error("webhook outbox unavailable at start; retrying", metadata: ["error": "\(error)"])
                condition.lock()
                let stop = inbox.stopping || condition.wait(until: Date.now.addingTimeInterval(delay)) && inbox.stopping
                condition.unlock()
                if stop { return }
                delay = min(delay * 2, 5)
            }
        }
    }

    /// How long the dispatcher waits after `failures` store errors in a row: 100 ms doubling, at
    /// most 5 s.
    static func backoff(after failures: Int) -> Int64 {
        min(5_000, 100 << min(max(failures - 1, 0), 6))
    }

    /// Waits `milliseconds` unless stopping: ended attempts and wakes do not cut it short.
    private func backOff(milliseconds: Int64) {
        let deadline = Date.now.addingTimeInterval(Double(milliseconds) / 1000)
        condition.lock()
        while !inbox.stopping, condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// Hands an ended attempt to the dispatcher thread. Any thread.
    private func end(_ result: WebhookPoster.Ended) {
        condition.lock()
        inbox.ended.append(result)
        inbox.inFlight -= 1
        condition.signal()
        condition.unlock()
    }

    /// Waits until `next` (Unix ms; nil, or passed: a delivery due but held back behind one in
    /// flight, here or on another node), an ended attempt or a wake; at most a second, when the
    /// endpoints are read again.
    private func sleep(until next: Int64?) {
        let now = clock.nowMillis()
        var wait: Int64 = 1_000
        if let next, next > now {
            wait = min(wait, next - now)
        }
        condition.lock()
        if !inbox.woken, inbox.ended.isEmpty, !inbox.stopping {
            _ = condition.wait(until: Date.now.addingTimeInterval(Double(wait) / 1000))
        }
        condition.unlock()
    }

    /// Gives up deliveries past the retry period or beyond their endpoint's cap, publishes the
    /// backlogs and drops deliveries finished longer ago than the retention.
    private func housekeep(now: Int64) throws {
        let expiry = try outbox.expireWebhookDeliveries(
            createdBefore: now - configuration.retryPeriod.wholeMilliseconds, backlogLimit: configuration.backlogLimit,
            at: now)
        metrics.gaveUp(expiry.expired, .expired)
        metrics.gaveUp(expiry.overflowed, .backlog)
        if expiry.overflowed > 0 {
            logger.warning(
                "webhook deliveries given up: an endpoint's backlog is over its cap",
                metadata: ["given-up": "\(expiry.overflowed)", "cap": "\(configuration.backlogLimit)"])
        }
        metrics.backlogs(try outbox.webhookBacklogs(), served: Set(lanes.keys), at: now)
        for lane in lanes.values {
            metrics.breaker(lane.endpoint.id, lane.breaker.gaugeValue)
        }
        _ = try outbox.pruneWebhookDeliveries(finishedBefore: now - configuration.retention.wholeMilliseconds)
    }

    /// Runs `body` on the lane of endpoint `id` and, when that moved its breaker between closed,
    /// half-open and open, publishes and logs the new state; nil when there is no such lane.
    @discardableResult
    private func change<Value>(_ id: String, _ body: (inout WebhookLane) -> Value) -> Value? {
        guard var lane = lanes[id] else { return nil }
        let before = lane.breaker.gaugeValue
        let value = body(&lane)
        lanes[id] = lane
        if lane.breaker.gaugeValue != before {
            breakerChanged(lane)
        }
        return value
    }

    /// Publishes and logs `lane`'s breaker state after it changed.
    private func breakerChanged(_ lane: WebhookLane) {
        metrics.breaker(lane.endpoint.id, lane.breaker.gaugeValue)
        switch lane.breaker.state {
        case .open(let until, let cooldown):
            logger.warning(
                "webhook endpoint failing; its circuit breaker is open",
                metadata: ["endpoint": "\(lane.endpoint.id)", "cooldown-ms": "\(cooldown)", "until": "\(until)"])
        case .halfOpen:
            logger.info("webhook endpoint probed", metadata: ["endpoint": "\(lane.endpoint.id)"])
        case .closed:
            logger.notice("webhook endpoint answering again; its circuit breaker is closed",
                          metadata: ["endpoint": "\(lane.endpoint.id)"])
        }
    }
}

extension WebhookDispatcher {
    /// What other threads tell the dispatcher thread: attempts that ended, how many are in
    /// flight, and whether it was woken, asked to read the endpoints again, or to stop.
    struct Inbox {
        var ended: [WebhookPoster.Ended] = []
        var inFlight = 0
        var woken = true
        var rereadRequested = true
        var stopping = false
    }

    /// The dispatcher thread's clock of chores: when it last read the endpoints and kept house
    /// (monotonic ms), and how many rounds in a row the store refused.
    struct Rounds {
        var lastReread: Int64?
        var lastHousekeeping: Int64?
        var storeFailures = 0
    }

    /// What the enabled endpoints make of the events (`WebhookReach`), reported whenever it changes.
    struct Activity {
        private var reach: WebhookReach?
        let report: @Sendable (WebhookReach) -> Void

        init(report: @escaping @Sendable (WebhookReach) -> Void) {
            self.report = report
        }

        mutating func set(_ newReach: WebhookReach) {
            guard reach != newReach else { return }
            reach = newReach
            report(newReach)
        }
    }
}
