import CallGateCore
import CallGateProtocol
import Testing

/// The outbox rules every store follows, as checks any store's tests run on a fresh store of
/// theirs: who gets a message, what is due, per-session order, attempts, 410, redelivery,
/// resuming and pruning.
public enum OutboxChecks {
    /// The time the checks start at, Unix ms.
    public static let t0: Int64 = 1_800_000_000_000

    private static func message(_ n: Int, _ type: WebhookEventType, session: String, at: Int64 = t0) -> StoreWrite {
        .webhook(WebhookMessage(
            id: "msg_\(n)", timestamp: at, event: WebhookEvent(type: type, data: WebhookData(sessionId: session))))
    }

    private static func endpoint(_ id: String, types: [WebhookEventType]? = nil, enabled: Bool = true) -> WebhookEndpoint {
        WebhookEndpoint(
            id: id, url: "http://127.0.0.1:1/\(id)", secrets: [WebhookSecret(value: "whsec_x")], eventTypes: types,
            enabled: enabled, createdAt: Self.t0 + Int64(id.utf8.count))
    }

    private static func attempt(_ id: Int64, _ status: WebhookDeliveryStatus, next: Int64? = nil, gone: Bool = false) -> WebhookAttempt {
        WebhookAttempt(
            deliveryID: id, at: Self.t0 + 10, durationMillis: 5, statusCode: status == .delivered ? 204 : (gone ? 410 : 500),
            error: nil, status: status, nextAttemptAt: next, disablesEndpoint: gone ? "410" : nil)
    }

    public static func aMessageGoesToEachEnabledEndpointThatWantsIt(_ store: any CallLogStore) throws {
        try store.apply([message(1, .callInitiated, session: "s")])
        #expect(try store.webhookBacklog().pending == 0)
        try store.putWebhookEndpoint(endpoint("a"))
        try store.putWebhookEndpoint(endpoint("bb", types: [.callRinging]))
        try store.putWebhookEndpoint(endpoint("ccc", enabled: false))
        try store.apply([message(2, .callInitiated, session: "s"), message(3, .callRinging, session: "t")])
        let due = try store.dueWebhookDeliveries(at: Self.t0, limit: 10, excluding: [])
        #expect(due.map { "\($0.endpoint.id) \($0.messageID)" } == ["a msg_2", "a msg_3", "bb msg_3"])
        #expect(due[0].body.contains(#""type":"call.initiated""#))
        #expect(try store.webhookBacklog() == WebhookBacklog(pending: 3, oldestPendingAt: Self.t0))
        #expect(try store.nextWebhookAttempt() == Self.t0)
    }

    public static func perSessionTheNextWaitsForTheOneBeforeIt(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([
            message(1, .callInitiated, session: "s"), message(2, .callRinging, session: "s"),
            message(3, .callInitiated, session: "t"),
        ])
        let first = try store.dueWebhookDeliveries(at: Self.t0, limit: 10, excluding: [])
        #expect(first.map(\.messageID) == ["msg_1", "msg_3"])
        #expect(try store.dueWebhookDeliveries(at: Self.t0, limit: 10, excluding: [first[0].id]).map(\.messageID) == ["msg_3"])
        try store.recordWebhookAttempts([attempt(first[0].id, .pending, next: Self.t0 + 1000)])
        #expect(try store.dueWebhookDeliveries(at: Self.t0 + 999, limit: 10, excluding: []).map(\.messageID) == ["msg_3"])
        let retried = try store.dueWebhookDeliveries(at: Self.t0 + 1000, limit: 10, excluding: [])
        #expect(retried.map(\.messageID) == ["msg_3", "msg_1"])
        #expect(retried[1].attempts == 1)
        try store.recordWebhookAttempts([attempt(first[0].id, .delivered)])
        #expect(try store.dueWebhookDeliveries(at: Self.t0 + 1000, limit: 10, excluding: []).map(\.messageID) == ["msg_2", "msg_3"])
    }

    public static func a410DisablesTheEndpointAndRedeliveryStartsOver(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s")])
        let id = try #require(try store.dueWebhookDeliveries(at: Self.t0, limit: 1, excluding: []).first).id
        try store.recordWebhookAttempts([attempt(id, .failed, gone: true)])
        let disabled = try #require(try store.webhookEndpoints().first)
        #expect(!disabled.enabled && disabled.disabledReason == "410")
        try store.apply([message(2, .callRinging, session: "s")])
        #expect(try store.webhookDeliveries(endpoint: "a", limit: 10).map(\.messageID) == ["msg_1"])
        #expect(try !store.redeliverWebhook(id: id, endpoint: "other", at: Self.t0))
        #expect(try store.redeliverWebhook(id: id, endpoint: "a", at: Self.t0 + 50))
        var enabled = disabled
        enabled.enabled = true
        try store.putWebhookEndpoint(enabled)
        let again = try store.dueWebhookDeliveries(at: Self.t0 + 50, limit: 1, excluding: [])
        #expect(again.map(\.messageID) == ["msg_1"])
        let record = try #require(try store.webhookDeliveries(endpoint: "a", limit: 1).first)
        #expect(record.status == .pending && record.attempts.map(\.statusCode) == [410])
    }

    public static func resumingMakesEverythingDueAndPruningForgetsTheFinished(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s"), message(2, .callInitiated, session: "t")])
        let due = try store.dueWebhookDeliveries(at: Self.t0, limit: 10, excluding: [])
        try store.recordWebhookAttempts([attempt(due[0].id, .delivered), attempt(due[1].id, .pending, next: Self.t0 + 60_000)])
        #expect(try store.nextWebhookAttempt() == Self.t0 + 60_000)
        try store.resumeWebhookDeliveries(at: Self.t0 + 20)
        #expect(try store.nextWebhookAttempt() == Self.t0 + 20)
        #expect(try store.dueWebhookDeliveries(at: Self.t0 + 20, limit: 10, excluding: []).map(\.messageID) == ["msg_2"])
        #expect(try store.pruneWebhookDeliveries(finishedBefore: Self.t0 + 15) == 0)
        #expect(try store.pruneWebhookDeliveries(finishedBefore: Self.t0 + 16) == 1)
        #expect(try store.webhookDeliveries(endpoint: "a", limit: 10).map(\.messageID) == ["msg_2"])
        #expect(try store.deleteWebhookEndpoint(id: "a"))
        #expect(try store.webhookBacklog().pending == 0)
        #expect(try !store.deleteWebhookEndpoint(id: "a"))
    }

    /// Every check, by name.
    public static var all: [(String, @Sendable (any CallLogStore) throws -> Void)] {
        [
            ("aMessageGoesToEachEnabledEndpointThatWantsIt", aMessageGoesToEachEnabledEndpointThatWantsIt),
            ("perSessionTheNextWaitsForTheOneBeforeIt", perSessionTheNextWaitsForTheOneBeforeIt),
            ("a410DisablesTheEndpointAndRedeliveryStartsOver", a410DisablesTheEndpointAndRedeliveryStartsOver),
            ("resumingMakesEverythingDueAndPruningForgetsTheFinished", resumingMakesEverythingDueAndPruningForgetsTheFinished),
        ]
    }
}
