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
    func claimWebhookDeliveries(_ claim: WebhookClaim) throws -> [WebhookDelivery] {
        try inner.claimWebhookDeliveries(claim)
    }
    func nextWebhookAttempt(endpoints: Set<String>) throws -> Int64? { try inner.nextWebhookAttempt(endpoints: endpoints) }
    func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int {
        try inner.recordWebhookAttempts(attempts, holder: holder)
    }
    func releaseWebhookClaims(holder: String) throws { try inner.releaseWebhookClaims(holder: holder) }
    func resumeWebhookDeliveries(at now: Int64, node: String, everyPending: Bool) throws {
        try inner.resumeWebhookDeliveries(at: now, node: node, everyPending: everyPending)
    }
    func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try inner.webhookDeliveries(endpoint: endpoint, limit: limit)
    }

    func webhookDeliveries(sessionId: String, limit: Int) throws -> [WebhookDeliveryRecord] {
        try inner.webhookDeliveries(sessionId: sessionId, limit: limit)
    }
    func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool {
        try inner.redeliverWebhook(id: id, endpoint: endpoint, at: now)
    }
    func webhookBacklogs() throws -> [String: WebhookBacklog] { try inner.webhookBacklogs() }
    func expireWebhookDeliveries(createdBefore cutoff: Int64, backlogLimit: Int, at now: Int64) throws -> WebhookExpiry {
        try inner.expireWebhookDeliveries(createdBefore: cutoff, backlogLimit: backlogLimit, at: now)
    }
    func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int {
        try inner.pruneWebhookDeliveries(finishedBefore: cutoff)
    }
}
