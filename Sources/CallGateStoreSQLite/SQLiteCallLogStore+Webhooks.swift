import CallGateCore
import CallGateProtocol
import Foundation
import GRDB

/// The webhook outbox in the store's file (schema v3, claims from v4). Messages enter it in the call log's own
/// transactions (`StoreTransaction.enqueue`); these methods serve the dispatcher and the admin
/// API, each in a transaction of its own. Any thread but the service thread.
extension SQLiteCallLogStore {
    /// Every endpoint, oldest first.
    public func webhookEndpoints() throws -> [WebhookEndpoint] {
        try read("reading webhook endpoints") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints ORDER BY created_at, id").map(Self.endpoint)
        }
    }

    /// Creates or replaces an endpoint (its deliveries stay).
    public func putWebhookEndpoint(_ endpoint: WebhookEndpoint) throws {
        let encoder = JSONEncoder()
        let secrets = String(decoding: try encoder.encode(endpoint.secrets), as: UTF8.self)
        let types = try endpoint.eventTypes.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try write("saving webhook endpoint \(endpoint.id)") { db in
            try db.execute(sql: """
                INSERT INTO webhook_endpoints (id, url, secrets, event_types, enabled, disabled_reason, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET url = excluded.url, secrets = excluded.secrets,
                    event_types = excluded.event_types, enabled = excluded.enabled,
                    disabled_reason = excluded.disabled_reason
                """, arguments: [
                    endpoint.id, endpoint.url, secrets, types, endpoint.enabled, endpoint.disabledReason,
                    endpoint.createdAt,
                ])
        }
    }

    /// Removes an endpoint with its deliveries (and their attempts), and the messages no other
    /// endpoint still has.
    public func deleteWebhookEndpoint(id: String) throws -> Bool {
        try write("removing webhook endpoint \(id)") { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { return false }
            try Self.deleteOrphanMessages(db)
            return true
        }
    }

    /// Claims due deliveries per endpoint, each endpoint's queue read in due order, in one write
    /// transaction (the file has one writer, so no two claims meet).
    public func claimWebhookDeliveries(_ claim: WebhookClaim) throws -> [WebhookDelivery] {
        let wanted = claim.room.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        guard !wanted.isEmpty else { return [] }
        return try write("claiming webhook deliveries") { db in
            var due: [WebhookDelivery] = []
            for (endpointID, room) in wanted {
                guard let endpoint = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM webhook_endpoints WHERE id = ? AND enabled = 1"),
                    arguments: [endpointID]).map(Self.endpoint)
                else { continue }
                let rows = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT d.id, d.session_id, m.id AS message_id, m.type, m.body, m.created_at,
                        (SELECT count(*) FROM webhook_attempts AS a WHERE a.delivery_id = d.id) AS attempts
                    FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                    WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at <= ?
                    AND (d.claim_expires_at IS NULL OR d.claim_expires_at <= ?)
                    AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries AS q
                        WHERE q.endpoint_id = d.endpoint_id AND q.session_id = d.session_id AND q.status = 'pending' AND q.id < d.id
                    )
                    ORDER BY d.next_attempt_at, d.id LIMIT ?
                    """), arguments: [endpointID, claim.now, claim.now, room])
                for row in rows {
                    guard let type = WebhookEventType(rawValue: row["type"]) else { continue }
                    let id: Int64 = row["id"]
                    try db.cachedStatement(sql: "UPDATE webhook_deliveries SET claimed_by = ?, claim_expires_at = ? WHERE id = ?")
                        .execute(arguments: [claim.holder, claim.until, id])
                    due.append(WebhookDelivery(
                        id: id, endpoint: endpoint, messageID: row["message_id"], type: type, sessionId: row["session_id"],
                        body: row["body"], attempts: row["attempts"], createdAt: row["created_at"]))
                }
            }
            return due
        }
    }

    /// The earliest time a pending delivery to one of `endpoints` may be claimed.
    public func nextWebhookAttempt(endpoints: Set<String>) throws -> Int64? {
        guard !endpoints.isEmpty else { return nil }
        let ids = Array(endpoints)
        return try read("reading the next webhook attempt") { db in
            try Int64.fetchOne(db, sql: """
                SELECT min(max(next_attempt_at, coalesce(claim_expires_at, next_attempt_at))) FROM webhook_deliveries
                WHERE status = 'pending' AND endpoint_id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))
                """, arguments: StatementArguments(ids))
        }
    }

    /// Records attempts under `holder`'s claims in one transaction.
    @discardableResult
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int {
        guard !attempts.isEmpty else { return 0 }
        return try write("recording \(attempts.count) webhook attempts") { db in
            var recorded = 0
            for attempt in attempts {
                let finished = attempt.status == .pending ? nil : attempt.at + attempt.durationMillis
                try db.cachedStatement(sql: """
                    UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, finished_at = ?, failure_reason = ?,
                        claimed_by = NULL, claim_expires_at = NULL
                    WHERE id = ? AND claimed_by = ? AND status = 'pending'
                    """).execute(arguments: [
                        attempt.status.rawValue, attempt.nextAttemptAt ?? attempt.at, finished, attempt.failureReason?.rawValue,
                        attempt.deliveryID, holder,
                    ])
                guard db.changesCount > 0 else { continue }
                recorded += 1
                if attempt.status == .pending, let next = attempt.nextAttemptAt {
                    // The session's later deliveries wait for this one: out of the due range until
                    // it is attempted again, so claims do not scan them meanwhile.
                    try db.cachedStatement(sql: """
                        UPDATE webhook_deliveries SET next_attempt_at = ?
                        WHERE status = 'pending' AND next_attempt_at < ? AND id > ?
                        AND (endpoint_id, session_id) = (SELECT endpoint_id, session_id FROM webhook_deliveries WHERE id = ?)
                        """).execute(arguments: [next, next, attempt.deliveryID, attempt.deliveryID])
                }
                try db.cachedStatement(sql: """
                    INSERT INTO webhook_attempts (delivery_id, at, duration_ms, status_code, error, status, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        attempt.deliveryID, attempt.at, attempt.durationMillis, attempt.statusCode, attempt.error,
                        attempt.status.rawValue, attempt.nextAttemptAt,
                    ])
                if let reason = attempt.disablesEndpoint {
                    try db.cachedStatement(sql: """
                        UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?
                        WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = ?)
                        """).execute(arguments: [reason, attempt.deliveryID])
                }
            }
            return recorded
        }
    }

    /// Ends every claim `holder` holds.
    public func releaseWebhookClaims(holder: String) throws {
        try write("releasing webhook claims") { db in
            try db.execute(
                sql: "UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at = NULL WHERE claimed_by = ?",
                arguments: [holder])
        }
    }

    /// Ends the claims of `node`'s earlier runs, due at `now`; with `everyPending`, makes every
    /// pending delivery due at `now` at the latest.
    public func resumeWebhookDeliveries(at now: Int64, node: String, everyPending: Bool) throws {
        let prefix = node + "/"
        try write("resuming webhook deliveries") { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at = NULL,
                        next_attempt_at = min(next_attempt_at, ?)
                    WHERE claimed_by IS NOT NULL AND substr(claimed_by, 1, ?) = ?
                    """,
                arguments: [now, prefix.utf8.count, prefix])
            if everyPending {
                try db.execute(
                    sql: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE status = 'pending' AND next_attempt_at > ?",
                    arguments: [now, now])
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

    /// The newest `limit` deliveries whose `column` (of `webhook_deliveries AS d`) is `value`.
    private func deliveries(whose column: String, is value: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try read("reading webhook deliveries") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT d.id, d.endpoint_id, d.session_id, d.status, d.next_attempt_at, d.failure_reason, m.id AS message_id,
                    m.type, m.created_at, m.body
                FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                WHERE \(column) = ? ORDER BY d.id DESC LIMIT ?
                """, arguments: [value, max(0, limit)])
            return try rows.compactMap { row in
                let id: Int64 = row["id"]
                guard let type = WebhookEventType(rawValue: row["type"]),
                      let status = WebhookDeliveryStatus(rawValue: row["status"])
                else { return nil }
                let attempts = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY rowid
                    """), arguments: [id]).map { attempt in
                    WebhookAttempt(
                        deliveryID: id, at: attempt["at"], durationMillis: attempt["duration_ms"],
                        statusCode: attempt["status_code"], error: attempt["error"],
                        status: WebhookDeliveryStatus(rawValue: attempt["status"]) ?? .pending,
                        nextAttemptAt: attempt["next_attempt_at"])
                }
                return WebhookDeliveryRecord(
                    id: id, endpointID: row["endpoint_id"], messageID: row["message_id"], type: type,
                    sessionId: row["session_id"], status: status,
                    failureReason: (row["failure_reason"] as String?).flatMap(WebhookFailureReason.init(rawValue:)),
                    createdAt: row["created_at"],
                    nextAttemptAt: status == .pending ? row["next_attempt_at"] : nil, body: row["body"],
                    attempts: attempts)
            }
        }
    }

    /// Makes delivery `id` to `endpoint` pending and due at `now`.
    public func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool {
        try write("redelivering webhook delivery \(id)") { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, finished_at = NULL,
                        failure_reason = NULL, redelivered_at = ?
                    WHERE id = ? AND endpoint_id = ?
                    """,
                arguments: [now, now, id, endpoint])
            return db.changesCount > 0
        }
    }

    /// Per endpoint: how many deliveries are pending, and the oldest one's event time.
    public func webhookBacklogs() throws -> [String: WebhookBacklog] {
        try read("reading the webhook backlog") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT d.endpoint_id, count(*) AS pending, min(m.created_at) AS oldest
                FROM webhook_deliveries AS d JOIN webhook_messages AS m ON m.id = d.message_id
                WHERE d.status = 'pending' GROUP BY d.endpoint_id
                """)
            return Dictionary(uniqueKeysWithValues: rows.map { row in
                (row["endpoint_id"] as String, WebhookBacklog(pending: row["pending"], oldestPendingAt: row["oldest"]))
            })
        }
    }

    /// Fails the unclaimed pending deliveries past the retry period, then those beyond each
    /// endpoint's newest `backlogLimit`.
    public func expireWebhookDeliveries(createdBefore cutoff: Int64, backlogLimit: Int, at now: Int64) throws -> WebhookExpiry {
        try write("expiring webhook deliveries") { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET status = 'failed', finished_at = ?, failure_reason = 'expired',
                        claimed_by = NULL, claim_expires_at = NULL
                    WHERE status = 'pending' AND (claim_expires_at IS NULL OR claim_expires_at <= ?)
                    AND coalesce(redelivered_at, (SELECT created_at FROM webhook_messages AS m WHERE m.id = message_id)) < ?
                    """,
                arguments: [now, now, cutoff])
            let expired = db.changesCount
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET status = 'failed', finished_at = ?, failure_reason = 'backlog',
                        claimed_by = NULL, claim_expires_at = NULL
                    WHERE id IN (
                        SELECT id FROM (
                            SELECT id, claim_expires_at,
                                row_number() OVER (PARTITION BY endpoint_id ORDER BY id DESC) AS newest
                            FROM webhook_deliveries WHERE status = 'pending')
                        WHERE newest > ? AND (claim_expires_at IS NULL OR claim_expires_at <= ?))
                    """,
                arguments: [now, backlogLimit, now])
            return WebhookExpiry(expired: expired, overflowed: db.changesCount)
        }
    }

    /// Deletes deliveries finished before `cutoff` and the messages left without one.
    public func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int {
        try write("pruning webhook deliveries") { db in
            try db.execute(
                sql: "DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ?", arguments: [cutoff])
            let removed = db.changesCount
            if removed > 0 {
                try Self.deleteOrphanMessages(db)
            }
            return removed
        }
    }

    private static func deleteOrphanMessages(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM webhook_messages AS m
            WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries AS d WHERE d.message_id = m.id)
            """)
    }

    /// An endpoint from its row. Event types this version does not know are left out; secrets it
    /// cannot read are read as none (the endpoint then signs nothing: an operator sees it in the
    /// admin API).
    private static func endpoint(_ row: Row) -> WebhookEndpoint {
        let decoder = JSONDecoder()
        let secrets = (row["secrets"] as String?).flatMap { try? decoder.decode([WebhookSecret].self, from: Data($0.utf8)) }
        let types = (row["event_types"] as String?)
            .flatMap { try? decoder.decode([String].self, from: Data($0.utf8)) }
            .map { $0.compactMap(WebhookEventType.init(rawValue:)) }
        return WebhookEndpoint(
            id: row["id"], url: row["url"], secrets: secrets ?? [], eventTypes: types, enabled: row["enabled"],
            disabledReason: row["disabled_reason"], createdAt: row["created_at"])
    }
}
