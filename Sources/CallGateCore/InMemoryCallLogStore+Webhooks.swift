import CallGateProtocol

/// The webhook outbox of the in-memory store, under the store's lock.
extension InMemoryCallLogStore {
    /// Every endpoint, oldest first.
    public func webhookEndpoints() throws -> [WebhookEndpoint] {
        state.withLock { $0.outbox.endpoints }
    }

    /// Creates or replaces an endpoint.
    public func putWebhookEndpoint(_ endpoint: WebhookEndpoint) throws {
        state.withLock { state in
            if let index = state.outbox.endpoints.firstIndex(where: { $0.id == endpoint.id }) {
                state.outbox.endpoints[index] = endpoint
            } else {
                state.outbox.endpoints.append(endpoint)
            }
        }
    }

    /// Removes an endpoint and its deliveries.
    public func deleteWebhookEndpoint(id: String) throws -> Bool {
        state.withLock { state in
            guard let index = state.outbox.endpoints.firstIndex(where: { $0.id == id }) else { return false }
            state.outbox.endpoints.remove(at: index)
            state.outbox.deliveries.removeAll { $0.endpointID == id }
            return true
        }
    }

    /// Claims due deliveries per endpoint, per session in order.
    public func claimWebhookDeliveries(_ claim: WebhookClaim) throws -> [WebhookDelivery] {
        state.withLock { state in
            var room = claim.room
            var due: [WebhookDelivery] = []
            // The first pending delivery of each session to each endpoint, in due order.
            var queued = Set<String>()
            let heads = state.outbox.deliveries.indices.filter { index in
                let delivery = state.outbox.deliveries[index]
                return delivery.status == .pending
                    && queued.insert(delivery.endpointID + " " + delivery.message.event.sessionId).inserted
            }.sorted { (state.outbox.deliveries[$0].nextAttemptAt, $0) < (state.outbox.deliveries[$1].nextAttemptAt, $1) }
            for index in heads {
                let delivery = state.outbox.deliveries[index]
                guard (room[delivery.endpointID] ?? 0) > 0, delivery.nextAttemptAt <= claim.now,
                      delivery.claimExpiresAt.map({ $0 <= claim.now }) ?? true,
                      let endpoint = state.outbox.endpoints.first(where: { $0.id == delivery.endpointID }), endpoint.enabled
                else { continue }
                room[delivery.endpointID, default: 0] -= 1
                state.outbox.deliveries[index].claimedBy = claim.holder
                state.outbox.deliveries[index].claimExpiresAt = claim.until
                due.append(WebhookDelivery(
                    id: delivery.id, endpoint: endpoint, messageID: delivery.message.id, type: delivery.message.event.type,
                    sessionId: delivery.message.event.sessionId, body: delivery.body, attempts: delivery.attempts.count,
                    createdAt: delivery.message.timestamp))
            }
            return due
        }
    }

    /// The earliest time a pending delivery to one of `endpoints` may be claimed.
    public func nextWebhookAttempt(endpoints: Set<String>) throws -> Int64? {
        state.withLock { state in
            state.outbox.deliveries
                .filter { $0.status == .pending && endpoints.contains($0.endpointID) }
                .map { max($0.nextAttemptAt, $0.claimExpiresAt ?? $0.nextAttemptAt) }.min()
        }
    }

    /// Records attempts under `holder`'s claims.
    @discardableResult
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int {
        state.withLock { state in
            var recorded = 0
            for attempt in attempts {
                guard let index = state.outbox.deliveries.firstIndex(where: { $0.id == attempt.deliveryID }),
                      state.outbox.deliveries[index].claimedBy == holder, state.outbox.deliveries[index].status == .pending
                else { continue }
                recorded += 1
                if attempt.status == .pending, let next = attempt.nextAttemptAt {
                    let head = state.outbox.deliveries[index]
                    for later in state.outbox.deliveries.indices where later > index {
                        let follower = state.outbox.deliveries[later]
                        if follower.status == .pending, follower.endpointID == head.endpointID,
                           follower.message.event.sessionId == head.message.event.sessionId {
                            state.outbox.deliveries[later].nextAttemptAt = max(follower.nextAttemptAt, next)
                        }
                    }
                }
                state.outbox.deliveries[index].attempts.append(attempt)
                state.outbox.deliveries[index].status = attempt.status
                state.outbox.deliveries[index].nextAttemptAt = attempt.nextAttemptAt ?? attempt.at
                state.outbox.deliveries[index].failureReason = attempt.failureReason
                state.outbox.deliveries[index].claimedBy = nil
                state.outbox.deliveries[index].claimExpiresAt = nil
                if attempt.status != .pending {
                    state.outbox.deliveries[index].finishedAt = attempt.at + attempt.durationMillis
                }
                if let reason = attempt.disablesEndpoint,
                   let endpoint = state.outbox.endpoints.firstIndex(where: { $0.id == state.outbox.deliveries[index].endpointID }) {
                    state.outbox.endpoints[endpoint].enabled = false
                    state.outbox.endpoints[endpoint].disabledReason = reason
                }
            }
            return recorded
        }
    }

    /// Ends every claim `holder` holds.
    public func releaseWebhookClaims(holder: String) throws {
        state.withLock { state in
            for index in state.outbox.deliveries.indices where state.outbox.deliveries[index].claimedBy == holder {
                state.outbox.deliveries[index].claimedBy = nil
                state.outbox.deliveries[index].claimExpiresAt = nil
            }
        }
    }

    /// Ends the claims of `node`'s earlier runs, due now; with `everyPending`, makes every
    /// pending delivery due now.
    public func resumeWebhookDeliveries(at now: Int64, node: String, everyPending: Bool) throws {
        state.withLock { state in
            for index in state.outbox.deliveries.indices {
                let released = state.outbox.deliveries[index].claimedBy?.hasPrefix(node + "/") == true
                if released {
                    state.outbox.deliveries[index].claimedBy = nil
                    state.outbox.deliveries[index].claimExpiresAt = nil
                }
                if released || everyPending, state.outbox.deliveries[index].status == .pending {
                    state.outbox.deliveries[index].nextAttemptAt = min(state.outbox.deliveries[index].nextAttemptAt, now)
                }
            }
        }
    }

    /// The newest deliveries to an endpoint.
    public func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        state.withLock { state in
            state.outbox.deliveries.filter { $0.endpointID == endpoint }.suffix(max(0, limit)).reversed().map(\.record)
        }
    }

    /// The newest `limit` deliveries about session `sessionId`, with their attempts.
    public func webhookDeliveries(sessionId: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        state.withLock { state in
            state.outbox.deliveries.filter { $0.message.event.sessionId == sessionId }.suffix(max(0, limit)).reversed().map(\.record)
        }
    }

    /// Makes a delivery pending and due again.
    public func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool {
        state.withLock { state in
            guard let index = state.outbox.deliveries.firstIndex(where: { $0.id == id && $0.endpointID == endpoint }) else {
                return false
            }
            state.outbox.deliveries[index].status = .pending
            state.outbox.deliveries[index].nextAttemptAt = now
            state.outbox.deliveries[index].finishedAt = nil
            state.outbox.deliveries[index].failureReason = nil
            state.outbox.deliveries[index].redeliveredAt = now
            return true
        }
    }

    /// Per endpoint: the pending count and the oldest pending event's time.
    public func webhookBacklogs() throws -> [String: WebhookBacklog] {
        state.withLock { state in
            var backlogs: [String: WebhookBacklog] = [:]
            for delivery in state.outbox.deliveries where delivery.status == .pending {
                var backlog = backlogs[delivery.endpointID] ?? WebhookBacklog(pending: 0, oldestPendingAt: nil)
                backlog.pending += 1
                backlog.oldestPendingAt = min(backlog.oldestPendingAt ?? .max, delivery.message.timestamp)
                backlogs[delivery.endpointID] = backlog
            }
            return backlogs
        }
    }

    /// Fails the unclaimed pending deliveries past the retry period, then those beyond each
    /// endpoint's newest `backlogLimit`.
    public func expireWebhookDeliveries(createdBefore cutoff: Int64, backlogLimit: Int, at now: Int64) throws -> WebhookExpiry {
        state.withLock { state in
            var expiry = WebhookExpiry(expired: 0, overflowed: 0)
            func unclaimed(_ index: Int) -> Bool {
                state.outbox.deliveries[index].status == .pending
                    && (state.outbox.deliveries[index].claimExpiresAt.map { $0 <= now } ?? true)
            }
            func fail(_ index: Int, _ reason: WebhookFailureReason) {
                state.outbox.deliveries[index].status = .failed
                state.outbox.deliveries[index].finishedAt = now
                state.outbox.deliveries[index].failureReason = reason
                state.outbox.deliveries[index].claimedBy = nil
                state.outbox.deliveries[index].claimExpiresAt = nil
            }
            for index in state.outbox.deliveries.indices
            where unclaimed(index)
                && (state.outbox.deliveries[index].redeliveredAt ?? state.outbox.deliveries[index].message.timestamp) < cutoff {
                fail(index, .expired)
                expiry.expired += 1
            }
            var newer: [String: Int] = [:]
            for index in state.outbox.deliveries.indices.reversed() where state.outbox.deliveries[index].status == .pending {
                let endpoint = state.outbox.deliveries[index].endpointID
                newer[endpoint, default: 0] += 1
                if newer[endpoint, default: 0] > backlogLimit, unclaimed(index) {
                    fail(index, .backlog)
                    expiry.overflowed += 1
                }
            }
            return expiry
        }
    }

    /// Drops deliveries finished before `cutoff`.
    public func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int {
        state.withLock { state in
            let before = state.outbox.deliveries.count
            state.outbox.deliveries.removeAll { $0.finishedAt.map { $0 < cutoff } ?? false }
            return before - state.outbox.deliveries.count
        }
    }
}

/// The in-memory outbox: endpoints, and deliveries in the order they were enqueued.
struct InMemoryOutbox {
    /// One message for one endpoint.
    struct Entry {
        let id: Int64
        let endpointID: String
        let message: WebhookMessage
        let body: String
        var status: WebhookDeliveryStatus = .pending
        var failureReason: WebhookFailureReason?
        var nextAttemptAt: Int64
        var finishedAt: Int64?
        var attempts: [WebhookAttempt] = []
        var claimedBy: String?
        var claimExpiresAt: Int64?
        var redeliveredAt: Int64?

        var record: WebhookDeliveryRecord {
            WebhookDeliveryRecord(
                id: id, endpointID: endpointID, messageID: message.id, type: message.event.type,
                sessionId: message.event.sessionId, status: status, failureReason: failureReason,
                createdAt: message.timestamp,
                nextAttemptAt: status == .pending ? nextAttemptAt : nil, body: body, attempts: attempts)
        }
    }

    var endpoints: [WebhookEndpoint] = []
    var deliveries: [Entry] = []
    var lastID: Int64 = 0

    /// Adds a delivery of `message` for each enabled endpoint that wants it.
    mutating func enqueue(_ message: WebhookMessage) {
        let wanting = endpoints.filter { $0.enabled && $0.wants(message.event.type) }
        guard !wanting.isEmpty else { return }
        let payload = message.payload()
        let body = String(decoding: payload, as: UTF8.self)
        for endpoint in wanting {
            lastID += 1
            deliveries.append(Entry(
                id: lastID, endpointID: endpoint.id, message: message, body: body, nextAttemptAt: message.timestamp))
        }
    }
}
