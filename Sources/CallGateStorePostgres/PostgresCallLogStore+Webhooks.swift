import CallGateCore
import CallGateProtocol
import Foundation
import PostgresNIO

/// The webhook outbox on PostgreSQL, shared by every node of a cluster. Messages enter it in the
/// call log's own transactions (`apply`); these methods serve the dispatchers and the admin API,
/// each in a transaction of its own. Any thread that may block, as every method of this store.
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

    /// Claims due deliveries per endpoint, each endpoint's queue read in due order with
    /// `FOR UPDATE SKIP LOCKED`: a row another node is claiming at this moment is passed over,
    /// and the per-session order check sees it still pending, so nothing queued behind it is
    /// taken either.
    public func claimWebhookDeliveries(_ claim: WebhookClaim) throws -> [WebhookDelivery] {
        let wanted = claim.room.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        guard !wanted.isEmpty else { return [] }
        let endpointIDs = wanted.map(\.key)
        let rooms = wanted.map { Int64($0.value) }
        return try blocking { [self] in
            try await transaction("claiming webhook deliveries") { [self] connection in
                var claimed: [Int64] = []
                for try await id in try await connection.query("""
                    WITH picked AS (
                        SELECT q.id FROM unnest(\(endpointIDs)::text[], \(rooms)::bigint[]) AS w (endpoint_id, room)
                        JOIN webhook_endpoints AS e ON e.id = w.endpoint_id AND e.enabled
                        CROSS JOIN LATERAL (
                            SELECT d.id FROM webhook_deliveries AS d
                            WHERE d.endpoint_id = w.endpoint_id AND d.status = 'pending'
                            AND d.next_attempt_at <= callgate_time(\(claim.now))
                            AND (d.claim_expires_at IS NULL OR d.claim_expires_at <= callgate_time(\(claim.now)))
                            AND NOT EXISTS (
                                SELECT 1 FROM webhook_deliveries AS p
                                WHERE p.endpoint_id = d.endpoint_id AND p.session_id = d.session_id
                                AND p.status = 'pending' AND p.id < d.id)
                            ORDER BY d.next_attempt_at, d.id LIMIT w.room
                            FOR UPDATE OF d SKIP LOCKED) AS q)
                    UPDATE webhook_deliveries AS d SET claimed_by = \(claim.holder), claim_expires_at = callgate_time(\(claim.until))
                    FROM picked WHERE d.id = picked.id
                    RETURNING d.id
                    """, logger: logger).decode(Int64.self) {
                    claimed.append(id)
                }
                guard !claimed.isEmpty else { return [] }
                let endpoints = Dictionary(uniqueKeysWithValues: try await endpoints(connection.query("""
                    SELECT id, url, secrets::text, event_types::text, enabled, disabled_reason, callgate_milliseconds(created_at)
                    FROM webhook_endpoints WHERE id = ANY (\(endpointIDs)::text[])
                    """, logger: logger)).map { ($0.id, $0) })
                var due: [WebhookDelivery] = []
                let rows = try await connection.query("""
                    SELECT d.id, d.endpoint_id, d.session_id, m.id, m.type, m.body, callgate_milliseconds(m.created_at),
                        (SELECT count(*) FROM webhook_attempts AS a WHERE a.delivery_id = d.id)
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.id = ANY (\(claimed)::bigint[])
                    ORDER BY d.next_attempt_at, d.id
                    """, logger: logger)
                for try await (id, endpointID, sessionId, messageID, typeName, body, createdAt, attempts) in rows.decode(
                    (Int64, String, String, String, String, String, Int64, Int).self
                ) {
                    guard let endpoint = endpoints[endpointID], let type = WebhookEventType(rawValue: typeName) else { continue }
                    due.append(WebhookDelivery(
                        id: id, endpoint: endpoint, messageID: messageID, type: type, sessionId: sessionId, body: body,
                        attempts: attempts, createdAt: createdAt))
                }
                return due
            }
        }
    }

    /// The earliest time a pending delivery to one of `endpoints` may be claimed.
    public func nextWebhookAttempt(endpoints: Set<String>) throws -> Int64? {
        guard !endpoints.isEmpty else { return nil }
        let ids = Array(endpoints)
        return try blocking { [self] in
            try await reading("reading the next webhook attempt") { [self] connection in
                var next: Int64?
                for try await value in try await connection.query("""
                    SELECT callgate_milliseconds(min(greatest(next_attempt_at, coalesce(claim_expires_at, next_attempt_at))))
                    FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id = ANY (\(ids)::text[])
                    """, logger: logger).decode(Int64?.self) {
                    next = value
                }
                return next
            }
        }
    }

    /// Records attempts under `holder`'s claims in one transaction. The delivery's row is
    /// updated first, which locks it: an endpoint deleted meanwhile waits for this transaction, or
    /// has already taken the row away and the attempt is left out.
    @discardableResult
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int {
        guard !attempts.isEmpty else { return 0 }
        return try blocking { [self] in
            try await transaction("recording \(attempts.count) webhook attempts") { [self] connection in
                var recorded = 0
                for attempt in attempts {
                    let finished = attempt.status == .pending ? nil : attempt.at + attempt.durationMillis
                    let held = try await count(connection.query("""
                        UPDATE webhook_deliveries SET status = \(attempt.status.rawValue),
                            next_attempt_at = callgate_time(\(attempt.nextAttemptAt ?? attempt.at)),
                            finished_at = callgate_time(\(finished)), failure_reason = \(attempt.failureReason?.rawValue),
                            claimed_by = NULL, claim_expires_at = NULL
                        WHERE id = \(attempt.deliveryID) AND claimed_by = \(holder) AND status = 'pending'
                        RETURNING 1
                        """, logger: logger))
                    guard held > 0 else { continue }
                    recorded += 1
                    if attempt.status == .pending, let next = attempt.nextAttemptAt {
                        // The session's later deliveries wait for this one: out of the due range
                        // until it is attempted again, so claims do not scan them meanwhile.
                        try await connection.query("""
                            UPDATE webhook_deliveries AS f SET next_attempt_at = callgate_time(\(next))
                            FROM webhook_deliveries AS d
                            WHERE d.id = \(attempt.deliveryID) AND f.endpoint_id = d.endpoint_id
                            AND f.session_id = d.session_id AND f.status = 'pending' AND f.id > d.id
                            AND f.next_attempt_at < callgate_time(\(next))
                            """, logger: logger)
                    }
                    try await connection.query("""
                        INSERT INTO webhook_attempts (delivery_id, at, duration_ms, status_code, error, status, next_attempt_at)
                        VALUES (\(attempt.deliveryID), callgate_time(\(attempt.at)), \(attempt.durationMillis), \(attempt.statusCode),
                                \(attempt.error), \(attempt.status.rawValue), callgate_time(\(attempt.nextAttemptAt)))
                        """, logger: logger)
                    if let reason = attempt.disablesEndpoint {
                        try await connection.query("""
                            UPDATE webhook_endpoints SET enabled = false, disabled_reason = \(reason)
                            WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = \(attempt.deliveryID))
                            """, logger: logger)
                    }
                }
                return recorded
            }
        }
    }

    /// Ends every claim `holder` holds.
    public func releaseWebhookClaims(holder: String) throws {
        try blocking { [self] in
            try await transaction("releasing webhook claims") { [self] connection in
                _ = try await connection.query("""
                    UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at = NULL WHERE claimed_by = \(holder)
                    """, logger: logger)
            }
        }
    }

    /// Ends the claims of `node`'s earlier runs, due at `now`; with `everyPending`, makes every
    /// pending delivery due at `now` at the latest.
    public func resumeWebhookDeliveries(at now: Int64, node: String, everyPending: Bool) throws {
        let prefix = node + "/"
        try blocking { [self] in
            try await transaction("resuming webhook deliveries") { [self] connection in
                _ = try await connection.query("""
                    UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at = NULL,
                        next_attempt_at = least(next_attempt_at, callgate_time(\(now)))
                    WHERE claimed_by IS NOT NULL AND left(claimed_by, \(Int32(prefix.count))) = \(prefix)
                    """, logger: logger)
                if everyPending {
                    _ = try await connection.query("""
                        UPDATE webhook_deliveries SET next_attempt_at = callgate_time(\(now))
                        WHERE status = 'pending' AND next_attempt_at > callgate_time(\(now))
                        """, logger: logger)
                }
            }
        }
    }

    /// The newest deliveries to `endpoint`, with their attempts.
    public func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try deliveries(whose: "d.endpoint_id", is: endpoint, limit: limit)
    }

    /// The newest `limit` deliveries about session `sessionId`, with their attempts.
    public func webhookDeliveries(sessionId: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try deliveries(whose: "d.session_id", is: sessionId, limit: limit)
    }

    /// The newest `limit` deliveries whose `column` (of `webhook_deliveries AS d`, one of this
    /// file's constants) is `value`.
    private func deliveries(whose column: String, is value: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try blocking { [self] in
            try await reading("reading webhook deliveries") { [self] connection in
                var records: [WebhookDeliveryRecord] = []
                let rows = try await connection.query("""
                    SELECT d.id, d.endpoint_id, d.session_id, d.status, callgate_milliseconds(d.next_attempt_at), m.id, m.type,
                        callgate_milliseconds(m.created_at), m.body, d.failure_reason
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE \(unescaped: column) = \(value) ORDER BY d.id DESC LIMIT \(max(0, limit))
                    """, logger: logger)
                for try await (id, endpointID, sessionId, statusName, next, messageID, typeName, createdAt, body, reason)
                    in rows.decode((Int64, String, String, String, Int64, String, String, Int64, String, String?).self)
                {
                    guard let type = WebhookEventType(rawValue: typeName),
                          let status = WebhookDeliveryStatus(rawValue: statusName)
                    else { continue }
                    records.append(WebhookDeliveryRecord(
                        id: id, endpointID: endpointID, messageID: messageID, type: type, sessionId: sessionId,
                        status: status, failureReason: reason.flatMap(WebhookFailureReason.init(rawValue:)),
                        createdAt: createdAt, nextAttemptAt: status == .pending ? next : nil, body: body, attempts: []))
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
                    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = callgate_time(\(now)), finished_at = NULL,
                        failure_reason = NULL, redelivered_at = callgate_time(\(now))
                    WHERE id = \(id) AND endpoint_id = \(endpoint) RETURNING 1
                    """, logger: logger)) > 0
            }
        }
    }

    /// Per endpoint: how many deliveries are pending, and the oldest one's event time.
    public func webhookBacklogs() throws -> [String: WebhookBacklog] {
        try blocking { [self] in
            try await reading("reading the webhook backlog") { [self] connection in
                var backlogs: [String: WebhookBacklog] = [:]
                for try await (endpoint, pending, oldest) in try await connection.query("""
                    SELECT d.endpoint_id, count(*), callgate_milliseconds(min(m.created_at))
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.status = 'pending' GROUP BY d.endpoint_id
                    """, logger: logger).decode((String, Int, Int64?).self) {
                    backlogs[endpoint] = WebhookBacklog(pending: pending, oldestPendingAt: oldest)
                }
                return backlogs
            }
        }
    }

    /// Fails the unclaimed pending deliveries past the retry period, then those beyond each
    /// endpoint's newest `backlogLimit`.
    public func expireWebhookDeliveries(createdBefore cutoff: Int64, backlogLimit: Int, at now: Int64) throws -> WebhookExpiry {
        try blocking { [self] in
            try await transaction("expiring webhook deliveries") { [self] connection in
                let expired = try await count(connection.query("""
                    UPDATE webhook_deliveries AS d SET status = 'failed', finished_at = callgate_time(\(now)),
                        failure_reason = 'expired', claimed_by = NULL, claim_expires_at = NULL
                    FROM webhook_messages AS m
                    WHERE m.id = d.message_id AND d.status = 'pending'
                    AND coalesce(d.redelivered_at, m.created_at) < callgate_time(\(cutoff))
                    AND (d.claim_expires_at IS NULL OR d.claim_expires_at <= callgate_time(\(now)))
                    RETURNING 1
                    """, logger: logger))
                let overflowed = try await count(connection.query("""
                    UPDATE webhook_deliveries SET status = 'failed', finished_at = callgate_time(\(now)), failure_reason = 'backlog',
                        claimed_by = NULL, claim_expires_at = NULL
                    WHERE id IN (
                        SELECT id FROM (
                            SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY id DESC) AS newest
                            FROM webhook_deliveries WHERE status = 'pending') AS ranked
                        WHERE newest > \(Int64(backlogLimit)))
                    -- Checked again on the row itself: one claimed or recorded meanwhile is left alone.
                    AND status = 'pending' AND (claim_expires_at IS NULL OR claim_expires_at <= callgate_time(\(now)))
                    RETURNING 1
                    """, logger: logger))
                return WebhookExpiry(expired: expired, overflowed: overflowed)
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
