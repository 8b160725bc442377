import CallGateCore

/// A test store that hands every outbox call to an in-memory store (`inner`) unless it
/// implements the call itself: the scripted stores override only what they script.
protocol ForwardingWebhookOutbox: WebhookOutbox {
    var inner: InMemoryCallLogStore { get }
}

extension ForwardingWebhookOutbox {
    func webhookEndpoints() throws -> [WebhookEndpoint] { try inner.webhookEndpoints() }
    func putWebhookEndpoint(_ endpoint: WebhookEndpoint) throws { try inner.putWebhookEndpoint(endpoint) }
    func deleteWebhookEndpoint(id: String) throws -> Bool { try inner.deleteWebhookEndpoint(id: id) }
    func dueWebhookDeliveries(at now: Int64, limit: Int, excluding: Set<Int64>) throws -> [WebhookDelivery] {
        try inner.dueWebhookDeliveries(at: now, limit: limit, excluding: excluding)
    }
    func nextWebhookAttempt() throws -> Int64? { try inner.nextWebhookAttempt() }
    func recordWebhookAttempts(_ attempts: [WebhookAttempt]) throws { try inner.recordWebhookAttempts(attempts) }
    func resumeWebhookDeliveries(at now: Int64) throws { try inner.resumeWebhookDeliveries(at: now) }
    func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try inner.webhookDeliveries(endpoint: endpoint, limit: limit)
    }
    func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool {
        try inner.redeliverWebhook(id: id, endpoint: endpoint, at: now)
    }
    func webhookBacklog() throws -> WebhookBacklog { try inner.webhookBacklog() }
    func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int {
        try inner.pruneWebhookDeliveries(finishedBefore: cutoff)
    }
}
