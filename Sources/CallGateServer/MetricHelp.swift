/// The `# HELP` line of every metric the gateway exposes. The metrics are made through
/// swift-metrics, whose API carries no help text, so the exposition gets its `# HELP` lines
/// here, each before its metric's `# TYPE` line; a metric without one fails `MetricsTests`.
/// The long form of each is the table in docs/operations.md.
enum MetricHelp {
    static let texts: [String: String] = [
        "callgate_sockets_open": "WebSockets open now, connected or still waiting for connect.",
        "callgate_sockets_closed_total": "Closed WebSockets by the close code (or how they ended).",
        "callgate_draining": "1 from the moment the node began draining (SIGTERM or POST /v1/admin/drain), 0 before.",
        "callgate_frames_received_total": "Whole messages received on WebSockets.",
        "callgate_frames_sent_total": "Replies and pushes handed to a socket, one per recipient socket.",
        "callgate_pushes_delivered_total": "Pushes by event name, one per recipient socket.",
        "callgate_calls_finished_total": "Rung calls that reached their final status, by status.",
        "callgate_ring_latency_seconds": "From taking up an initiateCall to handing its ring frames to the callees' sockets.",
        "callgate_op_seconds": "From taking up a request to releasing its reply (after the store commit it waits for), by op.",
        "callgate_outbound_queue_drops_total": "Frames lost to a full outbound queue (the socket closed with 4008).",
        "callgate_recoveries_total": "Connects that sent recover, by whether every missed push was replayed.",
        "callgate_replayed_pushes_total": "Pushes replayed to recovering devices.",
        "callgate_auth_failures_total": "Refused connects by reason.",
        "callgate_error_replies_total": "Requests answered with an error, by error code.",
        "callgate_store_queued_writes": "Call log writes waiting for the store (at the scrape).",
        "callgate_held_output": "Replies and pushes waiting for their call log writes to be durable (at the scrape).",
        "callgate_store_write_seconds": "How long each committed call log batch took.",
        "callgate_store_batch_size": "Writes per committed call log batch.",
        "callgate_store_write_failures_total": "Failed call log batch commits (retried).",
        "callgate_store_dead_letters_total": "Writes the store refused for good, set aside in the dead-letter file.",
        "callgate_webhook_deliveries_total": "Finished webhook deliveries by outcome.",
        "callgate_webhook_failures_total": "Webhook deliveries given up, by reason.",
        "callgate_webhook_attempts_total": "Webhook delivery attempts by result.",
        "callgate_webhook_attempt_seconds": "How long each webhook delivery attempt took, answered or not.",
        "callgate_webhook_queue_depth": "Webhook deliveries pending in the outbox.",
        "callgate_webhook_oldest_pending_seconds": "Age of the oldest pending webhook delivery's event.",
        "callgate_webhook_endpoint_backlog": "Webhook deliveries pending per enabled endpoint.",
        "callgate_webhook_endpoint_oldest_pending_seconds": "Age of each enabled endpoint's oldest pending delivery.",
        "callgate_webhook_endpoint_breaker": "Each enabled endpoint's circuit breaker: 0 closed, 1 half-open, 2 open.",
        "callgate_webhook_store_errors_total": "Times the webhook dispatcher could not read or write the outbox.",
        "callgate_cluster_member": "Cluster mode: 1 while this node is a live member, else 0.",
        "callgate_cluster_forwarded_ops_total": "Cluster mode: ops sent to the node that owns their call.",
        "callgate_cluster_unanswered_forwards_total": "Cluster mode: forwarded ops the owner did not answer in time.",
        "callgate_cluster_calls_taken_over_total": "Cluster mode: open calls of lapsed nodes this node took over.",
        "callgate_cluster_leases_lapsed_total": "Cluster mode: devices of other nodes whose lease lapsed.",
        "callgate_cluster_writes_fenced_total": "Cluster mode: calls whose write the store refused because another node owns them now.",
        "callgate_cluster_bus_rejected_total": "Cluster mode: bus messages dropped because their seal did not check out, by reason.",
    ]

    /// `exposition` with a `# HELP` line before each `# TYPE` line of a metric that has help.
    static func annotate(_ exposition: [UInt8]) -> [UInt8] {
        var annotated: [UInt8] = []
        annotated.reserveCapacity(exposition.count + 64 * texts.count)
        for line in exposition.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.starts(with: typePrefix) {
                let name = line.dropFirst(typePrefix.count).prefix { $0 != UInt8(ascii: " ") }
                if let text = texts[String(decoding: name, as: UTF8.self)] {
                    annotated += Array("# HELP ".utf8) + name + Array(" \(text)\n".utf8)
                }
            }
            annotated += line
            annotated.append(UInt8(ascii: "\n"))
        }
        if annotated.last == UInt8(ascii: "\n"), exposition.last != UInt8(ascii: "\n") {
            annotated.removeLast()
        }
        return annotated
    }

    private static let typePrefix = Array("# TYPE ".utf8)
}
