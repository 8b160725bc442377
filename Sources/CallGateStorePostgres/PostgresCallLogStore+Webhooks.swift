import CallGateCore
import CallGateProtocol
import Foundation
import PostgresNIO

/// The webhook outbox on PostgreSQL. Messages enter it in the call log's own transactions
/// (`apply`); these methods serve the dispatcher and the admin API, each in a transaction of its
/// own. Any thread that may block, as every method of this store.
extension PostgresCallLogStore {
    /// Every endpoint, oldest first.
    public func webhookEndpoints() throws -> [WebhookEndpoint] {
        try blocking { [self] in
            try await reading("reading webhook endpoints") { [self] connection in
                try await endpoints(connection.query("""
                    SELECT id, url, secrets::text, event_types::text, enabled, disabled_reason, callgate_milliseconds(created_at)
                    FROM webhook_endpoints ORDER BY created_at, id
                    """, logger: logger))
            }
        }
    }

    /// Creates or replaces an endpoint (its deliveries stay).
    public func putWebhookEndpoint(_ endpoint: WebhookEndpoint) throws {
        let encoder = JSONEncoder()
        let secrets = String(decoding: try encoder.encode(endpoint.secrets), as: UTF8.self)
        let types = try endpoint.eventTypes.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try blocking { [self] in
            try await transaction("saving webhook endpoint \(endpoint.id)") { [self] connection in
                _ = try await connection.query("""
                    INSERT INTO webhook_endpoints (id, url, secrets, event_types, enabled, disabled_reason, created_at)
                    VALUES (\(endpoint.id), \(endpoint.url), \(secrets)::jsonb, \(types)::jsonb, \(endpoint.enabled),
                            \(endpoint.disabledReason), callgate_time(\(endpoint.createdAt)))
                    ON CONFLICT (id) DO UPDATE SET url = excluded.url, secrets = excluded.secrets,
                        event_types = excluded.event_types, enabled = excluded.enabled,
                        disabled_reason = excluded.disabled_reason
                    """, logger: logger)
            }
        }
    }

    /// Removes an endpoint with its deliveries (and their attempts), and the messages no other
    /// endpoint still has.
    public func deleteWebhookEndpoint(id: String) throws -> Bool {
        try blocking { [self] in
            try await transaction("removing webhook endpoint \(id)") { [self] connection in
                let removed = try await count(connection.query(
                    "DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING 1", logger: logger))
                guard removed > 0 else { return false }
                try await deleteOrphanMessages(on: connection)
                return true
            }
        }
    }

    /// The due deliveries: pending, due by `now`, to an enabled endpoint, and first in their
    /// endpoint's queue for their session; at most `limit`, none of `excluding` (in flight).
    public func dueWebhookDeliveries(at now: Int64, limit: Int, excluding: Set<Int64>) throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        return try blocking { [self] in
            try await reading("reading due webhook deliveries") { [self] connection in
                let enabled = try await endpoints(connection.query("""
                    SELECT id, url, secrets::text, event_types::text, enabled, disabled_reason, callgate_milliseconds(created_at)
                    FROM webhook_endpoints WHERE enabled ORDER BY created_at, id
                    """, logger: logger))
                let byID = Dictionary(uniqueKeysWithValues: enabled.map { ($0.id, $0) })
                guard !byID.isEmpty else { return [] }
                let rows = try await connection.query("""
                    SELECT d.id, d.endpoint_id, d.session_id, m.id, m.type, m.body, callgate_milliseconds(m.created_at),
                        (SELECT count(*) FROM webhook_attempts AS a WHERE a.delivery_id = d.id)
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.status = 'pending' AND d.next_attempt_at <= callgate_time(\(now))
                    AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries AS q
                        WHERE q.endpoint_id = d.endpoint_id AND q.session_id = d.session_id AND q.status = 'pending'
                        AND q.id < d.id)
                    ORDER BY d.next_attempt_at, d.id LIMIT \(limit + excluding.count)
                    """, logger: logger)
                var due: [WebhookDelivery] = []
                for try await (id, endpointID, sessionId, messageID, typeName, body, createdAt, attempts) in rows.decode(
                    (Int64, String, String, String, String, String, Int64, Int).self
                ) {
                    guard !excluding.contains(id), due.count < limit, let endpoint = byID[endpointID],
                          let type = WebhookEventType(rawValue: typeName)
                    else { continue }
                    due.append(WebhookDelivery(
                        id: id, endpoint: endpoint, messageID: messageID, type: type, sessionId: sessionId, body: body,
                        attempts: attempts, createdAt: createdAt))
                }
                return due
            }
        }
    }

    /// The earliest next attempt of a pending delivery to an enabled endpoint.
    public func nextWebhookAttempt() throws -> Int64? {
        try blocking { [self] in
            try await reading("reading the next webhook attempt") { [self] connection in
                var next: Int64?
                for try await value in try await connection.query("""
                    SELECT callgate_milliseconds(d.next_attempt_at) FROM webhook_deliveries AS d
                    WHERE d.status = 'pending' AND d.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled)
                    ORDER BY d.next_attempt_at, d.id LIMIT 1
                    """, logger: logger).decode(Int64.self) {
                    next = value
                }
                return next
            }
        }
    }

    /// Records attempts and their deliveries' new state in one transaction.
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt]) throws {
        guard !attempts.isEmpty else { return }
        try blocking { [self] in
            try await transaction("recording \(attempts.count) webhook attempts") { [self] connection in
                for attempt in attempts {
                    try await connection.query("""
                        INSERT INTO webhook_attempts (delivery_id, at, duration_ms, status_code, error, status, next_attempt_at)
                        SELECT id, callgate_time(\(attempt.at)), \(attempt.durationMillis), \(attempt.statusCode), \(attempt.error),
                               \(attempt.status.rawValue), callgate_time(\(attempt.nextAttemptAt))
                        FROM webhook_deliveries WHERE id = \(attempt.deliveryID)
                        """, logger: logger)
                    let finished = attempt.status == .pending ? nil : attempt.at + attempt.durationMillis
                    try await connection.query("""
                        UPDATE webhook_deliveries SET status = \(attempt.status.rawValue),
                            next_attempt_at = callgate_time(\(attempt.nextAttemptAt ?? attempt.at)), finished_at = callgate_time(\(finished))
                        WHERE id = \(attempt.deliveryID)
                        """, logger: logger)
                    if let reason = attempt.disablesEndpoint {
                        try await connection.query("""
                            UPDATE webhook_endpoints SET enabled = false, disabled_reason = \(reason)
                            WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = \(attempt.deliveryID))
                            """, logger: logger)
                    }
                }
            }
        }
    }

    /// Makes every pending delivery due at `now` at the latest.
    public func resumeWebhookDeliveries(at now: Int64) throws {
        try blocking { [self] in
            try await transaction("resuming webhook deliveries") { [self] connection in
                _ = try await connection.query("""
                    UPDATE webhook_deliveries SET next_attempt_at = callgate_time(\(now))
                    WHERE status = 'pending' AND next_attempt_at > callgate_time(\(now))
                    """, logger: logger)
            }
        }
    }

    /// The newest deliveries to `endpoint`, with their attempts.
    public func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try blocking { [self] in
            try await reading("reading webhook deliveries") { [self] connection in
                var records: [WebhookDeliveryRecord] = []
                let rows = try await connection.query("""
                    SELECT d.id, d.endpoint_id, d.session_id, d.status, callgate_milliseconds(d.next_attempt_at), m.id, m.type,
                        callgate_milliseconds(m.created_at), m.body
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.endpoint_id = \(endpoint) ORDER BY d.id DESC LIMIT \(max(0, limit))
                    """, logger: logger)
                for try await (id, endpointID, sessionId, statusName, next, messageID, typeName, createdAt, body) in rows.decode(
                    (Int64, String, String, String, Int64, String, String, Int64, String).self
                ) {
                    guard let type = WebhookEventType(rawValue: typeName),
                          let status = WebhookDeliveryStatus(rawValue: statusName)
                    else { continue }
                    records.append(WebhookDeliveryRecord(
                        id: id, endpointID: endpointID, messageID: messageID, type: type, sessionId: sessionId,
                        status: status, createdAt: createdAt, nextAttemptAt: status == .pending ? next : nil, body: body,
                        attempts: []))
                }
                guard !records.isEmpty else { return records }
                let ids = records.map(\.id)
                var attempts: [Int64: [WebhookAttempt]] = [:]
                for try await (deliveryID, at, duration, code, error, statusName, next) in try await connection.query("""
                    SELECT delivery_id, callgate_milliseconds(at), duration_ms, status_code, error, status,
                        callgate_milliseconds(next_attempt_at) FROM webhook_attempts
                    WHERE delivery_id = ANY (\(ids)::bigint[]) ORDER BY id
                    """, logger: logger).decode((Int64, Int64, Int64, Int?, String?, String, Int64?).self) {
                    attempts[deliveryID, default: []].append(WebhookAttempt(
                        deliveryID: deliveryID, at: at, durationMillis: duration, statusCode: code, error: error,
                        status: WebhookDeliveryStatus(rawValue: statusName) ?? .pending, nextAttemptAt: next))
                }
                for index in records.indices {
                    records[index].attempts = attempts[records[index].id] ?? []
                }
                return records
            }
        }
    }

    /// Makes delivery `id` to `endpoint` pending and due at `now`.
    public func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool {
        try blocking { [self] in
            try await transaction("redelivering webhook delivery \(id)") { [self] connection in
                try await count(connection.query("""
                    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = callgate_time(\(now)), finished_at = NULL
                    WHERE id = \(id) AND endpoint_id = \(endpoint) RETURNING 1
                    """, logger: logger)) > 0
            }
        }
    }

    /// How many deliveries are pending, and the oldest one's event time.
    public func webhookBacklog() throws -> WebhookBacklog {
        try blocking { [self] in
            try await reading("reading the webhook backlog") { [self] connection in
                var backlog = WebhookBacklog(pending: 0, oldestPendingAt: nil)
                for try await (pending, oldest) in try await connection.query("""
                    SELECT count(*), callgate_milliseconds(min(m.created_at))
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.status = 'pending'
                    """, logger: logger).decode((Int, Int64?).self) {
                    backlog = WebhookBacklog(pending: pending, oldestPendingAt: oldest)
                }
                return backlog
            }
        }
    }

    /// Deletes deliveries finished before `cutoff` and the messages left without one.
    public func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int {
        try blocking { [self] in
            try await transaction("pruning webhook deliveries") { [self] connection in
                let removed = try await count(connection.query("""
                    DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < callgate_time(\(cutoff))\n                    RETURNING 1
                    """, logger: logger))
                if removed > 0 {
                    try await deleteOrphanMessages(on: connection)
                }
                return removed
            }
        }
    }

    private func deleteOrphanMessages(on connection: PostgresConnection) async throws {
        try await connection.query("""
            DELETE FROM webhook_messages AS m
            WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries AS d WHERE d.message_id = m.id)
            """, logger: logger)
    }

    /// How many rows `rows` has.
    private func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows {
            count += 1
        }
        return count
    }

    /// The endpoints of `rows` (id, url, secrets, event_types, enabled, disabled_reason,
    /// created_at). Event types this version does not know are left out; secrets it cannot read
    /// are read as none (the endpoint then signs nothing: an operator sees it in the admin API).
    private func endpoints(_ rows: PostgresRowSequence) async throws -> [WebhookEndpoint] {
        let decoder = JSONDecoder()
        var endpoints: [WebhookEndpoint] = []
        for try await (id, url, secrets, types, enabled, reason, createdAt) in rows.decode(
            (String, String, String, String?, Bool, String?, Int64).self
        ) {
            endpoints.append(WebhookEndpoint(
                id: id, url: url,
                secrets: (try? decoder.decode([WebhookSecret].self, from: Data(secrets.utf8))) ?? [],
                eventTypes: types.flatMap { try? decoder.decode([String].self, from: Data($0.utf8)) }
                    .map { $0.compactMap(WebhookEventType.init(rawValue:)) },
                enabled: enabled, disabledReason: reason, createdAt: createdAt))
        }
        return endpoints
    }
}
