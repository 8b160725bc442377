import CallGateCore
import CallGateProtocol
import Testing

/// The outbox rules every store follows, as checks any store's tests run on a fresh store of
/// theirs: who gets a message, claims (room per endpoint, per-session order across holders, a
/// lapsed claim, results only from the holder), 410, redelivery, resuming, expiry, the backlog
/// cap and pruning.
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

    /// Claims at `now` for `holder` until `until` (default: a minute on), `room` per endpoint;
    /// answers "endpoint message" per delivery, sorted.
    private static func claim(
        _ store: any CallLogStore, at now: Int64 = t0, by holder: String = "n/1", until: Int64? = nil,
        _ room: [String: Int] = ["a": 10]
    ) throws -> [WebhookDelivery] {
        try store.claimWebhookDeliveries(WebhookClaim(holder: holder, now: now, until: until ?? now + 60_000, room: room))
            .sorted { ($0.endpoint.id, $0.id) < ($1.endpoint.id, $1.id) }
    }

    public static func aMessageGoesToEachEnabledEndpointThatWantsIt(_ store: any CallLogStore) throws {
        try store.apply([message(1, .callInitiated, session: "s")])
        #expect(try store.webhookBacklogs().isEmpty)
        try store.putWebhookEndpoint(endpoint("a"))
        try store.putWebhookEndpoint(endpoint("bb", types: [.callRinging]))
        try store.putWebhookEndpoint(endpoint("ccc", enabled: false))
        try store.apply([message(2, .callInitiated, session: "s"), message(3, .callRinging, session: "t")])
        #expect(try store.webhookBacklogs() == [
            "a": WebhookBacklog(pending: 2, oldestPendingAt: Self.t0), "bb": WebhookBacklog(pending: 1, oldestPendingAt: Self.t0),
        ])
        #expect(try store.nextWebhookAttempt(endpoints: ["a", "bb"]) == Self.t0)
        #expect(try store.nextWebhookAttempt(endpoints: ["ccc"]) == nil)
        let due = try claim(store, ["a": 10, "bb": 10, "ccc": 10])
        #expect(due.map { "\($0.endpoint.id) \($0.messageID)" } == ["a msg_2", "a msg_3", "bb msg_3"])
        #expect(due[0].body.contains(#""type":"call.initiated""#))
        #expect(try store.nextWebhookAttempt(endpoints: ["a", "bb"]) == Self.t0 + 60_000, "claimed until then")
    }

    public static func eachEndpointIsClaimedUpToItsRoom(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.putWebhookEndpoint(endpoint("bb"))
        try store.apply((1...5).map { message($0, .callInitiated, session: "s\($0)") })
        #expect(try claim(store, ["a": 2, "bb": 0]).map(\.messageID) == ["msg_1", "msg_2"])
        #expect(try claim(store, by: "m/1", ["a": 10, "bb": 1]).map { "\($0.endpoint.id) \($0.messageID)" }
            == ["a msg_3", "a msg_4", "a msg_5", "bb msg_1"])
    }

    public static func perSessionTheNextWaitsForTheOneBeforeItAcrossHolders(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([
            message(1, .callInitiated, session: "s"), message(2, .callRinging, session: "s"),
            message(3, .callInitiated, session: "t"),
        ])
        let first = try claim(store)
        #expect(first.map(\.messageID) == ["msg_1", "msg_3"])
        #expect(try claim(store, by: "m/1").isEmpty, "claimed, or queued behind a claimed one")
        #expect(try store.recordWebhookAttempts([attempt(first[0].id, .pending, next: Self.t0 + 1000)], holder: "n/1") == 1)
        #expect(try store.webhookDeliveries(endpoint: "a", limit: 10).first { $0.messageID == "msg_2" }?.nextAttemptAt
            == Self.t0 + 1000, "the session's next delivery waits as long as the one before it")
        #expect(try claim(store, at: Self.t0 + 999, by: "m/1").isEmpty)
        let retried = try claim(store, at: Self.t0 + 1000, by: "m/1")
        #expect(retried.map(\.messageID) == ["msg_1"])
        #expect(retried[0].attempts == 1)
        #expect(try store.recordWebhookAttempts([attempt(first[0].id, .delivered)], holder: "n/1") == 0, "no longer its claim")
        #expect(try store.recordWebhookAttempts([attempt(first[1].id, .delivered)], holder: "n/1") == 1)
        #expect(try claim(store, at: Self.t0 + 1000).isEmpty, "msg_2 waits for msg_1")
        #expect(try store.recordWebhookAttempts([attempt(first[0].id, .delivered)], holder: "m/1") == 1)
        #expect(try claim(store, at: Self.t0 + 1000).map(\.messageID) == ["msg_2"])
        let record = try #require(try store.webhookDeliveries(endpoint: "a", limit: 10).first { $0.messageID == "msg_1" })
        #expect(record.status == .delivered && record.attempts.count == 2)
    }

    public static func aLapsedClaimIsTakenOverAndItsLateResultDropped(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s")])
        let id = try #require(try claim(store, until: Self.t0 + 100).first).id
        #expect(try store.nextWebhookAttempt(endpoints: ["a"]) == Self.t0 + 100)
        #expect(try claim(store, at: Self.t0 + 99, by: "m/1").isEmpty)
        #expect(try claim(store, at: Self.t0 + 100, by: "m/1").map(\.id) == [id])
        #expect(try store.recordWebhookAttempts([attempt(id, .failed, gone: true)], holder: "n/1") == 0)
        #expect(try store.webhookEndpoints().first?.enabled == true, "a result not recorded disables nothing")
        try store.releaseWebhookClaims(holder: "m/1")
        #expect(try claim(store, at: Self.t0 + 100, by: "k/1").map(\.id) == [id], "released: due again at once")
    }

    public static func a410DisablesTheEndpointAndRedeliveryStartsOver(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s")])
        let id = try #require(try claim(store).first).id
        try store.recordWebhookAttempts([attempt(id, .failed, gone: true)], holder: "n/1")
        let disabled = try #require(try store.webhookEndpoints().first)
        #expect(!disabled.enabled && disabled.disabledReason == "410")
        try store.apply([message(2, .callRinging, session: "s")])
        let gone = try store.webhookDeliveries(endpoint: "a", limit: 10)
        #expect(gone.map(\.messageID) == ["msg_1"] && gone.first?.failureReason == .gone)
        #expect(try !store.redeliverWebhook(id: id, endpoint: "other", at: Self.t0))
        #expect(try store.redeliverWebhook(id: id, endpoint: "a", at: Self.t0 + 50))
        #expect(try claim(store, at: Self.t0 + 50).isEmpty, "the endpoint is disabled")
        var enabled = disabled
        enabled.enabled = true
        try store.putWebhookEndpoint(enabled)
        #expect(try claim(store, at: Self.t0 + 50).map(\.messageID) == ["msg_1"])
        let record = try #require(try store.webhookDeliveries(endpoint: "a", limit: 1).first)
        #expect(record.status == .pending && record.failureReason == nil && record.attempts.map(\.statusCode) == [410])
    }

    public static func resumingReleasesTheNodesClaimsAndPruningForgetsTheFinished(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([
            message(1, .callInitiated, session: "s"), message(2, .callInitiated, session: "t"),
            message(3, .callInitiated, session: "u"), message(4, .callInitiated, session: "v"),
        ])
        let due = try claim(store, ["a": 2])
        try store.recordWebhookAttempts([attempt(due[0].id, .delivered)], holder: "n/1")
        #expect(try claim(store, by: "m/1", ["a": 1]).map(\.messageID) == ["msg_3"])
        #expect(try claim(store, by: "n:x/1", ["a": 1]).map(\.messageID) == ["msg_4"])
        try store.resumeWebhookDeliveries(at: Self.t0 + 20, node: "n", everyPending: false)
        #expect(try claim(store, at: Self.t0 + 20, by: "n/2").map(\.messageID) == ["msg_2"], "msg_3 and msg_4 are others'")
        try store.resumeWebhookDeliveries(at: Self.t0 + 30, node: "m", everyPending: false)
        #expect(try claim(store, at: Self.t0 + 30, by: "m/2").map(\.messageID) == ["msg_3"])
        #expect(try store.pruneWebhookDeliveries(finishedBefore: Self.t0 + 15) == 0)
        #expect(try store.pruneWebhookDeliveries(finishedBefore: Self.t0 + 16) == 1)
        #expect(try store.webhookDeliveries(endpoint: "a", limit: 10).map(\.messageID) == ["msg_4", "msg_3", "msg_2"])
        #expect(try store.deleteWebhookEndpoint(id: "a"))
        #expect(try store.webhookBacklogs().isEmpty)
        #expect(try !store.deleteWebhookEndpoint(id: "a"))
        #expect(try store.recordWebhookAttempts([attempt(due[1].id, .delivered)], holder: "n/2") == 0, "deleted meanwhile")
    }

    public static func deliveriesExpireOnTimeAndBeyondTheBacklogCap(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.putWebhookEndpoint(endpoint("bb"))
        try store.apply([
            message(1, .callInitiated, session: "s", at: t0 - 10_000), message(2, .callInitiated, session: "t", at: t0 - 10_000),
        ] + (3...6).map { message($0, .callInitiated, session: "u\($0)") })
        let held = try #require(try claim(store, ["a": 1]).first)
        #expect(held.messageID == "msg_1")
        let first = try store.expireWebhookDeliveries(createdBefore: Self.t0 - 5_000, backlogLimit: 3, at: Self.t0 + 1)
        // Expired: msg_2 to a, msg_1 and msg_2 to bb (msg_1 to a is claimed). Beyond the newest 3
        // pending to each: msg_3 to a (msg_1 is claimed), msg_3 to bb.
        #expect(first == WebhookExpiry(expired: 3, overflowed: 2))
        let records = try store.webhookDeliveries(endpoint: "a", limit: 10)
        #expect(records.map { "\($0.messageID) \($0.status.rawValue) \($0.failureReason?.rawValue ?? "-")" } == [
            "msg_6 pending -", "msg_5 pending -", "msg_4 pending -", "msg_3 failed backlog", "msg_2 failed expired",
            "msg_1 pending -",
        ])
        #expect(try store.webhookBacklogs()["bb"]?.pending == 3)
        #expect(try store.pruneWebhookDeliveries(finishedBefore: Self.t0 + 2) == 5)
    }

    public static func aSingleProcessMakesEveryPendingDeliveryDueAtStart(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s"), message(2, .callInitiated, session: "t")])
        let due = try claim(store)
        try store.recordWebhookAttempts([attempt(due[0].id, .pending, next: Self.t0 + 60_000)], holder: "n/1")
        try store.resumeWebhookDeliveries(at: Self.t0 + 20, node: "m", everyPending: false)
        #expect(try claim(store, at: Self.t0 + 20, by: "m/2").isEmpty, "another node's start changes nothing of n's")
        try store.resumeWebhookDeliveries(at: Self.t0 + 20, node: "local", everyPending: true)
        #expect(try claim(store, at: Self.t0 + 20, by: "local/1").map(\.messageID) == ["msg_1"], "msg_2 is still n's")
    }

    public static func aGivenUpDeliveryStaysGivenUpAndARedeliveredOneGetsItsAttempt(_ store: any CallLogStore) throws {
        try store.putWebhookEndpoint(endpoint("a"))
        try store.apply([message(1, .callInitiated, session: "s", at: t0 - 10_000)])
        let id = try #require(try claim(store, until: Self.t0 + 100).first).id
        #expect(try store.expireWebhookDeliveries(createdBefore: Self.t0 - 5_000, backlogLimit: 100, at: Self.t0 + 200)
            == WebhookExpiry(expired: 1, overflowed: 0))
        #expect(try store.recordWebhookAttempts([attempt(id, .pending, next: Self.t0 + 1_000)], holder: "n/1") == 0,
                "a late result of a lapsed claim does not bring a given-up delivery back")
        #expect(try store.webhookDeliveries(endpoint: "a", limit: 1).first?.failureReason == .expired)
        #expect(try store.redeliverWebhook(id: id, endpoint: "a", at: Self.t0 + 300))
        #expect(try store.expireWebhookDeliveries(createdBefore: Self.t0 - 5_000, backlogLimit: 100, at: Self.t0 + 400)
            == WebhookExpiry(expired: 0, overflowed: 0), "its period counts from the redelivery")
        #expect(try claim(store, at: Self.t0 + 400).map(\.id) == [id])
    }

    /// Every check, by name.
    public static var all: [(String, @Sendable (any CallLogStore) throws -> Void)] {
        [
            ("aMessageGoesToEachEnabledEndpointThatWantsIt", aMessageGoesToEachEnabledEndpointThatWantsIt),
            ("eachEndpointIsClaimedUpToItsRoom", eachEndpointIsClaimedUpToItsRoom),
            ("perSessionTheNextWaitsForTheOneBeforeItAcrossHolders", perSessionTheNextWaitsForTheOneBeforeItAcrossHolders),
            ("aLapsedClaimIsTakenOverAndItsLateResultDropped", aLapsedClaimIsTakenOverAndItsLateResultDropped),
            ("a410DisablesTheEndpointAndRedeliveryStartsOver", a410DisablesTheEndpointAndRedeliveryStartsOver),
            ("resumingReleasesTheNodesClaimsAndPruningForgetsTheFinished",
             resumingReleasesTheNodesClaimsAndPruningForgetsTheFinished),
            ("deliveriesExpireOnTimeAndBeyondTheBacklogCap", deliveriesExpireOnTimeAndBeyondTheBacklogCap),
            ("aSingleProcessMakesEveryPendingDeliveryDueAtStart", aSingleProcessMakesEveryPendingDeliveryDueAtStart),
            ("aGivenUpDeliveryStaysGivenUpAndARedeliveredOneGetsItsAttempt",
             aGivenUpDeliveryStaysGivenUpAndARedeliveredOneGetsItsAttempt),
        ]
    }
}
