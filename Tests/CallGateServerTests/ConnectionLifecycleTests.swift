import CallGateProtocol
@testable import CallGateServer
import Testing

/// A connection's life without a socket: the handshake's order, a retried `connect`, the
/// message budget and a token's life that only grows.
@Suite struct ConnectionLifecycleTests {
    @Test func onlyConnectOpensAndOnlyOnce() {
        var life = ConnectionLifecycle(budget: nil)
        #expect(life.received(isConnect: false) == .refuse(.userNotLoggedIn, "send connect with a token first"))
        #expect(life.received(isConnect: true) == .verify && life.phase == .verifying)
        #expect(life.received(isConnect: true) == .refuse(.badRequest, "this socket already sent connect"))
        #expect(life.received(isConnect: false) == .refuse(.userNotLoggedIn, "send connect with a token first"))
        #expect(life.connected(until: 100) && life.isConnected)
        #expect(life.received(isConnect: false) == .run)
        #expect(life.received(isConnect: true) == .refuse(.badRequest, "this socket already sent connect"))
    }

    @Test func aConnectThatFailedForAMomentMayBeSentAgain() {
        var life = ConnectionLifecycle(budget: nil)
        _ = life.received(isConnect: true)
        life.connectFailed()
        #expect(life.phase == .awaitingConnect)
        #expect(life.received(isConnect: true) == .verify)
        _ = life.connected(until: 100)
        life.connectFailed()
        #expect(life.isConnected, "a late failure does not undo a connect")
    }

    @Test func aTokensLifeOnlyGrows() {
        var life = ConnectionLifecycle(budget: nil)
        _ = life.received(isConnect: true)
        #expect(life.connected(until: 100) && life.tokenExpiresAt == 100)
        #expect(!life.extend(until: 90) && life.tokenExpiresAt == 100)
        #expect(life.extend(until: 200) && life.tokenExpiresAt == 200)
    }

    @Test func overItsBudgetAConnectionClosesOnceAndDropsTheRest() {
        var life = ConnectionLifecycle(budget: TokenBucket(ratePerSecond: 2, burst: 2, now: 0))
        #expect(life.spendMessage(now: 0) == .take)
        #expect(life.spendMessage(now: 0) == .take)
        #expect(life.spendMessage(now: 0) == .closeOverRate && life.overRate)
        #expect(life.spendMessage(now: 10_000) == .drop, "no refill reopens a closing connection")
        var unlimited = ConnectionLifecycle(budget: nil)
        #expect((0..<1_000).allSatisfy { _ in unlimited.spendMessage(now: 0) == .take })
    }
}
