import TestSupport
import CallGateProtocol
@testable import CallGateServer
import Prometheus
import Testing

/// GatewayMetrics over a registry of the test's own, read back through the text it renders.
@Suite struct GatewayMetricsTests {
    let registry = PrometheusCollectorRegistry()
    let metrics: GatewayMetrics

    init() {
        metrics = GatewayMetrics(registry: registry)
    }

    private var scrape: MetricsScrape {
        MetricsScrape(String(decoding: metrics.exposition(), as: UTF8.self))
    }

    @Test func everyKnownSeriesStartsAtZero() {
        let scrape = scrape
        #expect(scrape.unreadable.isEmpty)
        for name in [
            "callgate_sockets_open", "callgate_frames_received_total", "callgate_frames_sent_total",
            "callgate_outbound_queue_drops_total", "callgate_store_write_failures_total", "callgate_store_dead_letters_total",
            "callgate_ring_latency_seconds_count", "callgate_store_write_seconds_count", "callgate_store_batch_size_count",
            "callgate_webhook_queue_depth", "callgate_webhook_oldest_pending_seconds",
            #"callgate_webhook_deliveries_total{outcome="delivered"}"#, #"callgate_webhook_deliveries_total{outcome="failed"}"#,
        ] + ["success", "gone", "http_error", "timeout", "transport_error"].map({
            #"callgate_webhook_attempts_total{result="\#($0)"}"#
        }) {
            #expect(scrape[name] == 0, "\(name)")
        }
        for code in CloseCodeLabel.common {
            #expect(scrape[#"callgate_sockets_closed_total{code="\#(code)"}"#] == 0)
        }
        for event in EventName.allCases {
            #expect(scrape[#"callgate_pushes_delivered_total{event="\#(event.rawValue)"}"#] == 0)
        }
        for status in ["unanswered", "rejected", "busy", "cancelled", "ended"] {
            #expect(scrape[#"callgate_calls_finished_total{status="\#(status)"}"#] == 0)
        }
        #expect(scrape[#"callgate_calls_finished_total{status="ongoing"}"#] == nil)
        for reason in AuthFailureReason.allCases {
            #expect(scrape[#"callgate_auth_failures_total{reason="\#(reason.rawValue)"}"#] == 0)
        }
    }

    @Test func countersAddUp() {
        for _ in 0..<3 { metrics.socketOpened() }
        metrics.socketClosed(code: "4001")
        metrics.socketClosed(code: "4029")
        for _ in 0..<5 { metrics.frameReceived() }
        metrics.framesSent(4)
        metrics.framesSent(3)
        metrics.framesDropped(4)
        metrics.pushesDelivered(.onIncomingCallReceived, count: 3)
        metrics.pushesDelivered(.onIncomingCallReceived, count: 2)
        metrics.pushesDelivered(.onCallEnded, count: 1)
        metrics.callFinished(.busy)
        metrics.callFinished(.ended)
        metrics.callFinished(.ended)
        metrics.authFailed(.expired)
        metrics.authFailed(.connectTimeout)
        metrics.store.writeFailed()

        let scrape = scrape
        #expect(scrape["callgate_sockets_open"] == 1)
        #expect(scrape[#"callgate_sockets_closed_total{code="4001"}"#] == 1)
        #expect(scrape[#"callgate_sockets_closed_total{code="4029"}"#] == 1)
        #expect(scrape[#"callgate_sockets_closed_total{code="4008"}"#] == 0)
        #expect(scrape["callgate_frames_received_total"] == 5)
        #expect(scrape["callgate_frames_sent_total"] == 7)
        #expect(scrape["callgate_outbound_queue_drops_total"] == 4)
        #expect(scrape[#"callgate_pushes_delivered_total{event="onIncomingCallReceived"}"#] == 5)
        #expect(scrape[#"callgate_pushes_delivered_total{event="onCallEnded"}"#] == 1)
        #expect(scrape[#"callgate_pushes_delivered_total{event="onUserJoined"}"#] == 0)
        #expect(scrape[#"callgate_calls_finished_total{status="busy"}"#] == 1)
        #expect(scrape[#"callgate_calls_finished_total{status="ended"}"#] == 2)
        #expect(scrape[#"callgate_auth_failures_total{reason="expired"}"#] == 1)
        #expect(scrape[#"callgate_auth_failures_total{reason="connect_timeout"}"#] == 1)
        #expect(scrape[#"callgate_auth_failures_total{reason="malformed"}"#] == 0)
        #expect(scrape["callgate_store_write_failures_total"] == 1)
    }

    @Test func ringLatencyIsAHistogramInSeconds() {
        metrics.rang(after: .milliseconds(3))
        metrics.rang(after: .milliseconds(40))
        let scrape = scrape
        #expect(scrape["callgate_ring_latency_seconds_count"] == 2)
        #expect(scrape["callgate_ring_latency_seconds_sum"] == 0.043)
        #expect(scrape[#"callgate_ring_latency_seconds_bucket{le="0.002"}"#] == 0)
        #expect(scrape[#"callgate_ring_latency_seconds_bucket{le="0.005"}"#] == 1)
        #expect(scrape[#"callgate_ring_latency_seconds_bucket{le="0.05"}"#] == 2)
        #expect(scrape[#"callgate_ring_latency_seconds_bucket{le="+Inf"}"#] == 2)
    }

    @Test func storeCommitsFillTheirHistograms() {
        metrics.store.committed(writes: 1, in: .microseconds(300))
        metrics.store.committed(writes: 30, in: .milliseconds(20))
        let scrape = scrape
        #expect(scrape["callgate_store_write_seconds_count"] == 2)
        #expect(scrape[#"callgate_store_write_seconds_bucket{le="0.0005"}"#] == 1)
        #expect(scrape[#"callgate_store_write_seconds_bucket{le="0.025"}"#] == 2)
        #expect(scrape["callgate_store_batch_size_count"] == 2)
        #expect(scrape["callgate_store_batch_size_sum"] == 31)
        #expect(scrape[#"callgate_store_batch_size_bucket{le="25.0"}"#] == 1)
        #expect(scrape[#"callgate_store_batch_size_bucket{le="50.0"}"#] == 2)
    }

    @Test func errorRepliesAreCountedByCodeFromZero() {
        #expect(scrape[#"callgate_error_replies_total{code="ERR_CALL_NOT_FOUND"}"#] == 0)
        metrics.replied(error: .callNotFound)
        metrics.replied(error: .callNotFound)
        metrics.store.backlog(queuedWrites: 7, heldOutput: 3)
        let scrape = scrape
        #expect(scrape[#"callgate_error_replies_total{code="ERR_CALL_NOT_FOUND"}"#] == 2)
        #expect(scrape[#"callgate_error_replies_total{code="AUTH_ERR"}"#] == 0)
        #expect(scrape["callgate_store_queued_writes"] == 7)
        #expect(scrape["callgate_held_output"] == 3)
    }

    @Test func webhookAttemptsFillTheirHistogram() {
        metrics.webhooks.attempted(.success, after: .milliseconds(30), delivered: true, failed: nil)
        metrics.webhooks.attempted(.timeout, after: .seconds(10), delivered: false, failed: nil)
        let scrape = scrape
        #expect(scrape["callgate_webhook_attempt_seconds_count"] == 2)
        #expect(scrape[#"callgate_webhook_attempt_seconds_bucket{le="0.025"}"#] == 0)
        #expect(scrape[#"callgate_webhook_attempt_seconds_bucket{le="0.05"}"#] == 1)
        #expect(scrape[#"callgate_webhook_attempt_seconds_bucket{le="10.0"}"#] == 2)
        #expect(scrape[#"callgate_webhook_attempts_total{result="timeout"}"#] == 1)
    }

    @Test func twoGatewaysInOneProcessCountApart() {
        let other = GatewayMetrics(registry: PrometheusCollectorRegistry())
        metrics.frameReceived()
        other.frameReceived()
        other.frameReceived()
        #expect(scrape["callgate_frames_received_total"] == 1)
        #expect(MetricsScrape(String(decoding: other.exposition(), as: UTF8.self))["callgate_frames_received_total"] == 2)
    }
}
