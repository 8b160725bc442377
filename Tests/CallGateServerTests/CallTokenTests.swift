import CallGateProtocol
import CallGateServer
import Foundation
import Testing

@Suite("Call tokens")
struct CallTokenTests {
    private static let secret = "call-token-test-secret"

    @Test func aCallTokenAdmitsItsUserToItsSession() async throws {
        let service = try await TokenService(secret: Self.secret)
        let now = Date()
        let minted = try await service.mintCallToken(uid: "alice", sessionId: "v1.abc", now: now)
        #expect(minted.expiresAt == Int64(now.timeIntervalSince1970.rounded(.down)) + 600)
        #expect(await service.verifyCallToken(minted.token) == .success(CallGrant(uid: "alice", sessionId: "v1.abc")))
        let payload = try HandMadeJWT.object(1, of: minted.token)
        #expect(payload["typ"] as? String == "call")
        #expect(payload["sid"] as? String == "v1.abc")
    }

    @Test func callAndConnectionTokensAreNotInterchangeable() async throws {
        let service = try await TokenService(secret: Self.secret)
        let callToken = try await service.mintCallToken(uid: "alice", sessionId: "v1.abc").token
        let connectionToken = try await service.mint(user: User(uid: "alice", name: "Alice"), ttl: 60).token
        #expect(await service.verify(callToken) == .failure(.wrongKind))
        #expect(await service.verifyCallToken(connectionToken) == .failure(.wrongKind))
    }

    @Test func anExpiredOrForeignCallTokenIsRefused() async throws {
        let service = try await TokenService(secret: Self.secret)
        let other = try await TokenService(secret: "another-secret")
        let expired = try await service.mintCallToken(uid: "alice", sessionId: "s", now: Date().addingTimeInterval(-3600)).token
        let foreign = try await other.mintCallToken(uid: "alice", sessionId: "s").token
        #expect(await service.verifyCallToken(expired) == .failure(.expired))
        #expect(await service.verifyCallToken(foreign) == .failure(.badSignature))
    }
}
