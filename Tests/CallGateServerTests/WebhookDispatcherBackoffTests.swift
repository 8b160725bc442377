import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Foundation
import Logging
import Prometheus
import Synchronization
import Testing

/// An outbox that refuses to record attempts while `down`, as PostgreSQL switched read-only
/// does (reads still work), and counts how often it was asked.
private final class ReadOnlyOutbox: ForwardingWebhookOutbox, Sendable {
    let inner = InMemoryCallLogStore()
    private let state = Mutex((down: false, refusals: 0))

    struct ReadOnly: Error {}

    var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    var refusals: Int { state.withLock { $0.refusals } }

    func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int {
        let refused = state.withLock { state in
            guard state.down, !attempts.isEmpty else { return false }
            state.refusals += 1
            return true
        }
        if refused { throw ReadOnly() }
        return try inner.recordWebhookAttempts(attempts, holder: holder)
    }
}

/// A store that refuses writes makes the dispatcher back off (100 ms doubling, at most 5 s),
/// not spin: attempts that ended and wakes do not cut the wait short.
@Suite struct WebhookDispatcherBackoffTests {
    @Test func theBackoffDoublesFrom100MillisecondsToAtMostFiveSeconds() {
        #expect((1...8).map(WebhookDispatcher.backoff(after:)) == [100, 200, 400, 800, 1600, 3200, 5000, 5000])
    }

    @Test func aStoreThatRefusesWritesIsAskedAFewTimesASecondAndTheResultsAreKept() async throws {
        let outbox = ReadOnlyOutbox()
        try outbox.putWebhookEndpoint(WebhookEndpoint(
            id: "refused", url: "http://127.0.0.1:1/hook", secrets: [WebhookSecret(value: "whsec_x")], eventTypes: nil,
            enabled: true, createdAt: 1))
        try outbox.inner.apply((1...4).map { n in
            .webhook(WebhookMessage(
                id: "msg_\(n)", timestamp: SystemClock().nowMillis(),
                event: WebhookEvent(type: .callInitiated, data: WebhookData(sessionId: "s\(n)"))))
        })
        outbox.down = true
        // Nothing listens on port 1, and the HTTP client retries a refused connect until the
        // attempt's deadline: each attempt ends after 200 ms.
        var configuration = WebhookConfiguration()
        configuration.timeout = .milliseconds(200)
        configuration.allowsPrivateNetworks = true
        let dispatcher = WebhookDispatcher(
            outbox: outbox, configuration: configuration, node: "local", clustered: false, clock: SystemClock(),
            metrics: WebhookMetrics(factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())),
            logger: Logger(label: "test"), onReachChanged: { _ in })
        for _ in 0..<30 {
            dispatcher.wake()
            try await Task.sleep(for: .milliseconds(50))
        }
        let refusals = outbox.refusals
        #expect(refusals >= 1 && refusals <= 8, "a backoff of 100, 200, 400, 800 ms within 1.3 s, not \(refusals) tries")
        outbox.down = false
        dispatcher.wake()
        var recorded = false
        for _ in 0..<100 where !recorded {
            try await Task.sleep(for: .milliseconds(50))
            recorded = try outbox.webhookDeliveries(endpoint: "refused", limit: 10).allSatisfy { !$0.attempts.isEmpty }
        }
        dispatcher.stop()
        #expect(recorded, "every attempt made while the store refused was recorded once it took writes")
    }
}
