import AsyncHTTPClient
import CallGateCore
import CallGateProtocol
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Takes due deliveries out of the outbox and POSTs them, signed, on a thread of its own:
/// nothing here runs on the service thread, so a slow or dead receiver never delays a ring.
///
/// At most `concurrency` attempts are in flight, each a task on AsyncHTTPClient's event loop;
/// memory holds only those (every payload waits in the store), so a backlog of any size costs
/// none. Each attempt is recorded before the next delivery of the same session to the same
/// endpoint is taken (the outbox holds it back while the earlier one is pending), so per call
/// events arrive in order. A delivery whose attempt was not recorded (the process died) is still
/// pending and is attempted again: at least once, with the same `webhook-id`.
///
/// The thread sleeps until the next delivery is due, an attempt ends, or `wake` is called (a
/// commit that wrote events, an admin change). It also prunes finished deliveries past their
/// retention and publishes the backlog metrics.
final class WebhookDispatcher: @unchecked Sendable {
    private let outbox: any WebhookOutbox
    private let configuration: WebhookConfiguration
    private let clock: any CoreClock
    private let metrics: WebhookMetrics
    private let logger: Logger
    private let client: HTTPClient
    /// Guards every member below it.
    private let condition = NSCondition()
    private var inFlight: Set<Int64> = []
    /// Attempts that ended and are not recorded yet.
    private var ended: [WebhookAttempt] = []
    private var woken = true
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the dispatcher thread over `outbox`; pending deliveries are attempted at once.
    init(outbox: any WebhookOutbox, configuration: WebhookConfiguration, clock: any CoreClock, metrics: WebhookMetrics, logger: Logger) {
        self.outbox = outbox
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        var http = HTTPClient.Configuration()
        http.redirectConfiguration = .disallow
        http.timeout = .init(connect: Self.timeAmount(configuration.timeout), read: Self.timeAmount(configuration.timeout))
        http.decompression = .disabled
        if let caFile = configuration.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            http.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        let thread = Thread { [self] in run() }
        thread.name = "callgate-webhooks"
        thread.start()
    }

    /// Something may be due now: look at the outbox again. Any thread; returns at once.
    func wake() {
        condition.lock()
        woken = true
        condition.signal()
        condition.unlock()
    }

    /// Stops taking deliveries, gives the attempts in flight up to `timeout` to end and records
    /// those that did (the others stay pending for the next run), and shuts the HTTP client
    /// down. Any thread but the dispatcher's; blocks until done.
    func stop(timeout: Duration = .seconds(2)) {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        finished.wait()
        let deadline = Date.now.addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        while !Set(ended.map(\.deliveryID)).isSuperset(of: inFlight), condition.wait(until: deadline) {}
        let last = ended
        ended.removeAll()
        condition.unlock()
        try? outbox.recordWebhookAttempts(last)
        try? client.syncShutdown()
    }

    private func run() {
        var lastHousekeeping: Int64?
        var storeFailures = 0
        resume()
        while true {
            condition.lock()
            if stopping {
                condition.unlock()
                break
            }
            let results = ended
            ended.removeAll()
            woken = false
            condition.unlock()
            var recorded = false
            do {
                try outbox.recordWebhookAttempts(results)
                recorded = true
                condition.lock()
                inFlight.subtract(results.map(\.deliveryID))
                condition.unlock()
                let now = clock.nowMillis()
                if lastHousekeeping.map({ now - $0 >= 5_000 }) ?? true {
                    lastHousekeeping = now
                    housekeep(now: now)
                }
                let full = try startDue(now: now)
                let next = full ? nil : try outbox.nextWebhookAttempt()
                if storeFailures > 0 {
                    logger.notice("webhook outbox available again", metadata: ["failures": "\(storeFailures)"])
                    storeFailures = 0
                }
                // Full: only an attempt ending makes room, so the outbox need not be read (a busy
                // gateway wakes the dispatcher at every commit).
                sleep(until: next, full: full)
            } catch {
                // The store refuses (an outage, or a read-only failover): keep the results not
                // recorded yet, and back off, whatever ends or wakes meanwhile.
                if !recorded {
                    condition.lock()
                    ended.insert(contentsOf: results, at: 0)
                    condition.unlock()
                }
                storeFailures += 1
                metrics.storeFailed()
                if storeFailures == 1 {
                    logger.error("webhook outbox unavailable; backing off", metadata: ["error": "\(error)"])
                }
                backOff(milliseconds: Self.backoff(after: storeFailures))
            }
        }
        finished.signal()
    }

    /// Makes every pending delivery due now (after a restart), retrying while the store refuses.
    private func resume() {
        var delay = 0.1
        while true {
            do {
                try outbox.resumeWebhookDeliveries(at: clock.nowMillis())
                return
            } catch {
                logger.error("webhook outbox unavailable at start; retrying", metadata: ["error": "\(error)"])
                condition.lock()
                let stop = stopping || condition.wait(until: Date.now.addingTimeInterval(delay)) && stopping
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
        while !stopping, condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// Starts an attempt for every due delivery there is room for; returns whether every slot
    /// is taken now. Throws when the store cannot be read.
    private func startDue(now: Int64) throws -> Bool {
        condition.lock()
        let room = configuration.concurrency - inFlight.count
        let busy = inFlight
        condition.unlock()
        guard room > 0 else { return true }
        let due = try outbox.dueWebhookDeliveries(at: now, limit: room, excluding: busy)
        condition.lock()
        inFlight.formUnion(due.map(\.id))
        condition.unlock()
        for delivery in due {
            Task { [self] in
                end(await attempt(delivery))
            }
        }
        return due.count == room
    }

    /// Hands an ended attempt to the dispatcher thread. Any thread.
    private func end(_ attempt: WebhookAttempt) {
        condition.lock()
        ended.append(attempt)
        condition.signal()
        condition.unlock()
    }

    /// Waits until `next` (Unix ms; nil: no delivery pending), an ended attempt or a wake (when
    /// `full`, a wake is not enough: only an ended attempt makes room). A delivery due already but
    /// held back behind one in flight waits for that one to end; the wait is at most 5 s, for
    /// housekeeping.
    private func sleep(until next: Int64?, full: Bool = false) {
        let now = clock.nowMillis()
        var wait: Int64 = 5_000
        if let next, next > now {
            wait = min(wait, next - now)
        }
        condition.lock()
        if full || !woken, ended.isEmpty, !stopping {
            _ = condition.wait(until: Date.now.addingTimeInterval(Double(wait) / 1000))
        }
        condition.unlock()
    }

    /// Publishes the backlog and drops deliveries finished longer ago than the retention.
    private func housekeep(now: Int64) {
        if let backlog = try? outbox.webhookBacklog() {
            let age = backlog.oldestPendingAt.map { max(0, Double(now - $0) / 1000) } ?? 0
            metrics.backlog(pending: backlog.pending, oldestSeconds: age)
        }
        _ = try? outbox.pruneWebhookDeliveries(finishedBefore: now - configuration.retention.wholeMilliseconds)
    }

    /// POSTs one delivery and says where that leaves it. Any thread.
    private func attempt(_ delivery: WebhookDelivery) async -> WebhookAttempt {
        let started = clock.nowMillis()
        let timer = ContinuousClock.now
        let body = Data(delivery.body.utf8)
        var request = HTTPClientRequest(url: delivery.endpoint.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "CallGate-Webhooks/1")
        request.headers.add(name: "webhook-id", value: delivery.messageID)
        request.headers.add(name: "webhook-timestamp", value: String(started / 1000))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.header(
                id: delivery.messageID, timestamp: started / 1000, body: body,
                secrets: delivery.endpoint.signingSecrets(at: started)))
        request.body = .bytes(ByteBuffer(bytes: body))
        var statusCode: Int?
        var failure: String?
        var result: WebhookMetrics.AttemptResult
        do {
            let response = try await client.execute(request, timeout: Self.timeAmount(configuration.timeout))
            statusCode = Int(response.status.code)
            // The answer's body means nothing here; read a little of it so the connection is reused.
            _ = try? await response.body.collect(upTo: 16 * 1024)
            switch response.status.code {
            case 200..<300: result = .success
            case 410: result = .gone
            default: result = .httpError
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            result = .timeout
            failure = "no answer within \(configuration.timeout)"
        } catch {
            result = .transportError
            failure = "\(error)"
        }
        let duration = Int64((ContinuousClock.now - timer).wholeMilliseconds)
        var status = WebhookDeliveryStatus.delivered
        var next: Int64?
        var disables: String?
        switch result {
        case .success:
            break
        case .gone:
            status = .failed
            disables = "the endpoint answered 410 Gone"
        case .httpError, .timeout, .transportError:
            let retryAt = started + duration + retryDelay(after: delivery.attempts)
            if retryAt <= delivery.createdAt + configuration.retryPeriod.wholeMilliseconds {
                status = .pending
                next = retryAt
            } else {
                status = .failed
            }
        }
        metrics.attempted(result, delivered: status == .delivered, failed: status == .failed)
        if status == .failed {
            logger.warning(
                "webhook delivery failed for good",
                metadata: ["endpoint": "\(delivery.endpoint.id)", "webhook-id": "\(delivery.messageID)",
                           "type": "\(delivery.type.rawValue)", "last": "\(statusCode.map(String.init) ?? failure ?? "")"])
        }
        return WebhookAttempt(
            deliveryID: delivery.id, at: started, durationMillis: duration, statusCode: statusCode, error: failure,
            status: status, nextAttemptAt: next, disablesEndpoint: disables)
    }

    /// The wait after `attempts` failed attempts: the schedule's entry (its last one repeats),
    /// spread by ±20%.
    private func retryDelay(after attempts: Int) -> Int64 {
        let schedule = configuration.retrySchedule
        let base = schedule[min(max(0, attempts), schedule.count - 1)].wholeMilliseconds
        return Int64(Double(base) * Double.random(in: 0.8...1.2))
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .milliseconds(duration.wholeMilliseconds)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.wholeMilliseconds) / 1000
    }
}
