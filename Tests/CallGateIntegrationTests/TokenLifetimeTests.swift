import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Synchronization
import TestSupport
import Testing

/// A socket lives as long as its connection token: closed with 4003 at `exp`, unless
/// `refreshToken` brought a later token for the same user.
/// Tokens here live `lifetime` seconds: long enough for mint, connect and refresh on a loaded
/// machine; every wait is measured from the token's real `exp`.
@Suite("Token lifetime on open sockets")
struct TokenLifetimeTests {
    static let lifetime = 8

    /// From now until `unixSeconds`, plus `margin` (the margin alone once it passed).
    static func until(_ unixSeconds: Int64, plus margin: Duration = .milliseconds(1500)) -> Duration {
        let left = max(0, Double(unixSeconds) - Date.now.timeIntervalSince1970)
        return .milliseconds(Int64(left * 1000)) + margin
    }

    @Test func aSocketIsClosedWith4003WhenItsTokenExpires() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let before = Int64(Date.now.timeIntervalSince1970)
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: Self.lifetime))
        #expect((before + Int64(Self.lifetime) - 1...before + Int64(Self.lifetime) + 5).contains(connected.tokenExpiresAt))
        #expect(try await alice.expectClose(within: Self.until(connected.tokenExpiresAt, plus: .seconds(10))) == CloseCode.tokenExpired)
        // The gateway times the close on the monotonic clock; the wall clock the test reads may
        // be slewed by a few milliseconds over the token's life (NTP), so a close a hair after
        // exp can read as a hair before it.
        #expect(Date.now.timeIntervalSince1970 >= Double(connected.tokenExpiresAt) - 0.05, "not before exp")
        _ = try await gateway.scrape { $0[#"callgate_auth_failures_total{reason="token_expired"}"#] == 1 }
    }

    @Test func refreshTokenKeepsTheSocketOpenPastTheFirstToken() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: Self.lifetime))
        let later = try await gateway.tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 3600)
        #expect(try await alice.refreshToken(later.token).tokenExpiresAt == later.expiresAt)
        await alice.expectSilence(for: Self.until(connected.tokenExpiresAt))
        #expect(try await alice.ping().serverTime > 0)
    }

    @Test func theClientRefreshesThroughTheAppsCallbackAndOutlivesEveryToken() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let fetches = Mutex(0)
        let alice = try await gateway.socket()
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: Self.lifetime)) { [gateway] in
            fetches.withLock { $0 += 1 }
            return try await gateway.token("alice", ttl: Self.lifetime)
        }
        await alice.expectSilence(for: Self.until(connected.tokenExpiresAt))
        #expect(try await alice.ping().serverTime > 0)
        #expect(fetches.withLock { $0 } >= 1, "the first token was replaced before it expired")
    }

    @Test func aRefreshNeverShortensTheSocketsLife() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let connected = try await alice.connect(token: try await gateway.token("alice", ttl: 3600))
        let shorter = try await gateway.tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: Self.lifetime)
        #expect(try await alice.refreshToken(shorter.token).tokenExpiresAt == connected.tokenExpiresAt)
        await alice.expectSilence(for: Self.until(shorter.expiresAt))
    }

    @Test(arguments: ["another-uid", "wrong-secret", "expired", "call-token", "garbage"])
    func aRefreshWithAForeignTokenIsRefusedAndTheOldTokenStillRules(_ kind: String) async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let eve = try await gateway.socket()
        let connected = try await eve.connect(token: try await gateway.token("eve", ttl: Self.lifetime))
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
        #expect(try await eve.expectClose(within: Self.until(connected.tokenExpiresAt, plus: .seconds(10))) == CloseCode.tokenExpired)
    }

    @Test func refreshTokenBeforeConnectIsRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let socket = try await gateway.socket()
        await expectError(.userNotLoggedIn) { try await socket.refreshToken(try await gateway.token("eve")) }
    }
}
