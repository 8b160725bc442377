import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Synchronization
import TestSupport
import Testing

/// A socket lives as long as its connection token: closed with 4003 at `exp`, unless
/// `refreshToken` brought a later token for the same user.
@Suite("Token lifetime on open sockets")
struct TokenLifetimeTests {
    @Test func aSocketIsClosedWith4003WhenItsTokenExpires() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let before = Int64(Date.now.timeIntervalSince1970)
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: 2))
        #expect((before + 1...before + 3).contains(connected.tokenExpiresAt))
        #expect(try await alice.expectClose(within: .seconds(6)) == CloseCode.tokenExpired)
        _ = try await gateway.scrape { $0[#"callgate_auth_failures_total{reason="token_expired"}"#] == 1 }
    }

    @Test func refreshTokenKeepsTheSocketOpenPastTheFirstToken() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        _ = try await alice.connect(token: try await gateway.token("alice", ttl: 2))
        let later = try await gateway.tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 3600)
        #expect(try await alice.refreshToken(later.token).tokenExpiresAt == later.expiresAt)
        await alice.expectSilence(for: .seconds(3))
        #expect(try await alice.ping().serverTime > 0)
    }

    @Test func theClientRefreshesThroughTheAppsCallbackAndOutlivesEveryToken() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let fetches = Mutex(0)
        let alice = try await gateway.socket()
        _ = try await alice.connect(token: try await gateway.token("alice", ttl: 2)) { [gateway] in
            fetches.withLock { $0 += 1 }
            return try await gateway.token("alice", ttl: 2)
        }
        await alice.expectSilence(for: .seconds(5))
        #expect(try await alice.ping().serverTime > 0)
        #expect(fetches.withLock { $0 } >= 3, "each 2 s token was replaced before it expired")
    }

    @Test func aRefreshNeverShortensTheSocketsLife() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: 3600))
        #expect(try await alice.refreshToken(try await gateway.token("alice", ttl: 1)).tokenExpiresAt == connected.tokenExpiresAt)
        await alice.expectSilence(for: .seconds(2))
    }

    @Test(arguments: ["another-uid", "wrong-secret", "expired", "call-token", "garbage"])
    func aRefreshWithAForeignTokenIsRefusedAndTheOldTokenStillRules(_ kind: String) async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let eve = try await gateway.socket()
        _ = try await eve.connect(token: try await gateway.token("eve", ttl: 3))
        let token: String
        switch kind {
        case "another-uid":
            token = try await gateway.token("alice")
        case "wrong-secret":
            token = try await TokenService(secret: "another-secret").mint(user: User(uid: "eve", name: "Eve"), ttl: 3600).token
        case "expired":
            token = try await gateway.tokens.mint(user: User(uid: "eve", name: "Eve"), ttl: 60, now: .now.addingTimeInterval(-3600)).token
        case "call-token":
            token = try await gateway.tokens.mintCallToken(uid: "eve", sessionId: "meet:x").token
        default:
            token = "garbage"
        }
        await expectError(.authError) { try await eve.refreshToken(token) }
        #expect(try await eve.ping().serverTime > 0, "a refused refresh leaves the socket open")
        #expect(try await eve.expectClose(within: .seconds(6)) == CloseCode.tokenExpired)
    }

    @Test func refreshTokenBeforeConnectIsRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let socket = try await gateway.socket()
        await expectError(.userNotLoggedIn) { try await socket.refreshToken(try await gateway.token("eve")) }
    }
}
