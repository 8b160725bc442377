import CallGateCore
import CallGateProtocol
import CallGateStorePostgres
import Foundation
import Synchronization
import TestSupport
import Testing

/// Two nodes sharing one outbox claim its deliveries at the same time: no delivery is claimed
/// twice, none is left, and each session's events are claimed in order (`FOR UPDATE SKIP LOCKED`
/// with the per-session check).
@Suite struct PostgresWebhookClaimTests {
    @Test func twoNodesClaimingAtOnceTakeEachDeliveryOnceAndEachSessionInOrder() async throws {
        try await withTestDatabase { url, _ in
            let location = try PostgresLocation(url)
            let first = try await PostgresCallLogStore.open(location, logger: PostgresCallLogStoreTests.logger)
            defer { first.close() }
            let second = try await PostgresCallLogStore.open(location, logger: PostgresCallLogStoreTests.logger)
            defer { second.close() }
            let now = SystemClock().nowMillis()
            try await offPool {
                try first.putWebhookEndpoint(WebhookEndpoint(
                    id: "a", url: "http://127.0.0.1:1/a", secrets: [WebhookSecret(value: "whsec_x")], createdAt: now))
                try first.apply((0..<240).map { n in
                    .webhook(WebhookMessage(
                        id: "msg_\(n)", timestamp: now,
                        event: WebhookEvent(type: .callInitiated, data: WebhookData(sessionId: "s\(n % 60)"))))
                })
            }
            let claimed = ClaimLog()
            try await withThrowingTaskGroup { group in
                for (store, holder) in [(first, "a/1"), (second, "b/1")] {
                    group.addTask {
                    try await offPool {
                        while try !store.webhookBacklogs().isEmpty {
                            let at = SystemClock().nowMillis()
                            let due = try store.claimWebhookDeliveries(
                                WebhookClaim(holder: holder, now: at, until: at + 60_000, room: ["a": 7]))
                            claimed.ids.withLock { $0 += due.map(\.messageID) }
                            try store.recordWebhookAttempts(due.map { delivery in
                                WebhookAttempt(
                                    deliveryID: delivery.id, at: at, durationMillis: 1, statusCode: 204, error: nil,
                                    status: .delivered, nextAttemptAt: nil)
                            }, holder: holder)
                        }
                    }
                }
                }
                try await group.waitForAll()
            }
            let order = claimed.ids.withLock { $0 }
            #expect(order.count == 240 && Set(order).count == 240, "each delivery claimed once")
            let numbers = order.map { Int($0.dropFirst(4))! }
            for session in 0..<60 {
                let sessionOrder = numbers.filter { $0 % 60 == session }
                #expect(sessionOrder == sessionOrder.sorted(), "session s\(session) in order")
            }
        }
    }
}

/// The message ids claimed, in the order the claims returned.
private final class ClaimLog: Sendable {
    let ids = Mutex<[String]>([])
}
