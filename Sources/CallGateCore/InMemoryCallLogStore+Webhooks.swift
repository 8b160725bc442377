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

    /// The due deliveries, per session in order.
    public func dueWebhookDeliveries(at now: Int64, limit: Int, excluding: Set<Int64>) throws -> [WebhookDelivery] {
        state.withLock { state in
            let outbox = state.outbox
            var blocked = Set<String>()
            var due: [(Int64, WebhookDelivery)] = []
            for delivery in outbox.deliveries where delivery.status == .pending {
                let key = delivery.endpointID + " " + delivery.message.event.sessionId
                guard blocked.insert(key).inserted else { continue }
                guard !excluding.contains(delivery.id), delivery.nextAttemptAt <= now,
                      let endpoint = outbox.endpoints.first(where: { $0.id == delivery.endpointID }), endpoint.enabled
                else { continue }
                due.append((delivery.nextAttemptAt, WebhookDelivery(
                    id: delivery.id, endpoint: endpoint, messageID: delivery.message.id, type: delivery.message.event.type,
                    sessionId: delivery.message.event.sessionId, body: delivery.body, attempts: delivery.attempts.count,
                    createdAt: delivery.message.timestamp)))
            }
            return due.sorted { ($0.0, $0.1.id) < ($1.0, $1.1.id) }.prefix(max(0, limit)).map(\.1)
        }
    }

    /// The earliest next attempt of a pending delivery to an enabled endpoint.
    public func nextWebhookAttempt() throws -> Int64? {
        state.withLock { state in
            let enabled = Set(state.outbox.endpoints.filter(\.enabled).map(\.id))
            return state.outbox.deliveries
                .filter { $0.status == .pending && enabled.contains($0.endpointID) }
                .map(\.nextAttemptAt).min()
        }
    }

    /// Records attempts and their deliveries' new state.
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt]) throws {
        state.withLock { state in
            for attempt in attempts {
                guard let index = state.outbox.deliveries.firstIndex(where: { $0.id == attempt.deliveryID }) else { continue }
                state.outbox.deliveries[index].attempts.append(attempt)
                state.outbox.deliveries[index].status = attempt.status
                state.outbox.deliveries[index].nextAttemptAt = attempt.nextAttemptAt ?? attempt.at
                if attempt.status != .pending {
                    state.outbox.deliveries[index].finishedAt = attempt.at + attempt.durationMillis
                }
                if let reason = attempt.disablesEndpoint,
                   let endpoint = state.outbox.endpoints.firstIndex(where: { $0.id == state.outbox.deliveries[index].endpointID }) {
                    state.outbox.endpoints[endpoint].enabled = false
                    state.outbox.endpoints[endpoint].disabledReason = reason
                }
            }
        }
    }

    /// Makes every pending delivery due now.
    public func resumeWebhookDeliveries(at now: Int64) throws {
        state.withLock { state in
            for index in state.outbox.deliveries.indices where state.outbox.deliveries[index].status == .pending {
                state.outbox.deliveries[index].nextAttemptAt = min(state.outbox.deliveries[index].nextAttemptAt, now)
            }
        }
    }

    /// The newest deliveries to an endpoint.
    public func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        state.withLock { state in
            state.outbox.deliveries.filter { $0.endpointID == endpoint }.suffix(max(0, limit)).reversed().map(\.record)
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
            return true
        }
    }

    /// The pending count and the oldest pending event's time.
    public func webhookBacklog() throws -> WebhookBacklog {
        state.withLock { state in
            let pending = state.outbox.deliveries.filter { $0.status == .pending }
            return WebhookBacklog(pending: pending.count, oldestPendingAt: pending.map(\.message.timestamp).min())
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
        var nextAttemptAt: Int64
        var finishedAt: Int64?
        var attempts: [WebhookAttempt] = []

        var record: WebhookDeliveryRecord {
            WebhookDeliveryRecord(
                id: id, endpointID: endpointID, messageID: message.id, type: message.event.type,
                sessionId: message.event.sessionId, status: status, createdAt: message.timestamp,
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
