import AsyncHTTPClient
import CallGateCore
import CallGateProtocol
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One webhook attempt: the signed POST of a delivery through its endpoint's route, bounded by
/// `--webhook-timeout` from name lookup to the answer's body, and where its result leaves the
/// delivery (delivered, failed, or pending until the retry schedule's next time). The
/// dispatcher claims and records; this only posts. Any thread.
struct WebhookPoster: Sendable {
    /// An attempt that ended, for the dispatcher thread.
    struct Ended: Sendable {
        let endpointID: String
        /// The route it went through: an attempt of a lane since replaced (its URL changed)
        /// counts in the new lane neither as in flight nor for its breaker.
        let route: ObjectIdentifier
        let attempt: WebhookAttempt
        /// Whether it counts against the endpoint's breaker (no answer, 5xx, 429, refused).
        let failed: Bool
    }

    let configuration: WebhookConfiguration
    let clock: any CoreClock
    let metrics: WebhookMetrics
    let logger: Logger

    /// POSTs one delivery through `route` and says where that leaves it: the name lookup, the
    /// request and reading the answer all end within `--webhook-timeout`, so an attempt never
    /// outlives its claim. Any thread.
    func post(_ delivery: WebhookDelivery, through route: WebhookRoute) async -> Ended {
        let started = clock.nowMillis()
        let timer = ContinuousClock.now
        let deadline = timer + configuration.timeout
        var statusCode: Int?
        var failure: String?
        var result: WebhookMetrics.AttemptResult
        do {
            let client = try await route.client(for: delivery.endpoint.url, within: configuration.timeout)
            let request = request(for: delivery, at: started)
            let remaining = deadline - ContinuousClock.now
            // The client's own deadline ends a request that gets no answer, with its last error
            // (a refused connect, a certificate); the guard a little later ends a slow body too.
            let ends = NIODeadline.now() + .milliseconds(max(0, remaining.wholeMilliseconds))
            let code = try await TimeLimit.run(remaining + .milliseconds(250), orThrow: { HTTPClientError.deadlineExceeded }) {
                let response = try await client.execute(request, deadline: ends)
                // The answer's body means nothing here; read a little of it so the connection is reused.
                _ = try await response.body.collect(upTo: 16 * 1024)
                return response.status.code
            }
            statusCode = Int(code)
            switch code {
            case 200..<300: result = .success
            case 410: result = .gone
            default: result = .httpError
            }
        } catch let error as WebhookAddressError {
            if case .forbidden = error { result = .refused } else { result = .transportError }
            failure = "\(error)"
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
        case .httpError, .timeout, .transportError, .refused:
            let retryAt = started + duration + retryDelay(after: delivery.attempts)
            if retryAt <= delivery.createdAt + configuration.retryPeriod.wholeMilliseconds {
                status = .pending
                next = retryAt
            } else {
                status = .failed
            }
        }
        let attempt = WebhookAttempt(
            deliveryID: delivery.id, at: started, durationMillis: duration, statusCode: statusCode, error: failure,
            status: status, nextAttemptAt: next, disablesEndpoint: disables)
        metrics.attempted(result, after: ContinuousClock.now - timer, delivered: status == .delivered, failed: attempt.failureReason)
        if status == .failed {
            logger.warning(
                "webhook delivery failed for good",
                metadata: ["endpoint": "\(delivery.endpoint.id)", "webhook-id": "\(delivery.messageID)",
                           "type": "\(delivery.type.rawValue)", "last": "\(statusCode.map(String.init) ?? failure ?? "")"])
        }
        let countsAgainst = switch result {
        case .success, .gone: false
        case .httpError: statusCode.map { $0 >= 500 || $0 == 429 } ?? true
        case .timeout, .transportError, .refused: true
        }
        return Ended(endpointID: delivery.endpoint.id, route: ObjectIdentifier(route), attempt: attempt, failed: countsAgainst)
    }

    /// The signed POST of `delivery` at `started` (Unix ms).
    private func request(for delivery: WebhookDelivery, at started: Int64) -> HTTPClientRequest {
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
        return request
    }

    /// The wait after `attempts` failed attempts: the schedule's entry (its last one repeats),
    /// spread by ±20%.
    private func retryDelay(after attempts: Int) -> Int64 {
        let schedule = configuration.retrySchedule
        let base = schedule[min(max(0, attempts), schedule.count - 1)].wholeMilliseconds
        return Int64(Double(base) * Double.random(in: 0.8...1.2))
    }
}
