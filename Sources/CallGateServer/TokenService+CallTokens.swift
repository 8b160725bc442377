import Foundation
import JWTKit

/// Call tokens: short-lived passes into one call session, signed like connection tokens.
extension TokenService {
    /// How long a call token lasts unless asked otherwise: 10 minutes.
    public static let callTokenTTL = 600

    /// A call token admitting `uid` to `sessionId`, expiring `ttl` seconds after `now`.
    public func mintCallToken(
        uid: String, sessionId: String, ttl: Int = callTokenTTL, now: Date = .now
    ) async throws -> (token: String, expiresAt: Int64) {
        guard ttl >= 1 else { throw TokenError.invalidLifetime }
        let expiresAt = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(ttl)
        let claims = CallTokenClaims(uid: uid, sessionId: sessionId, expiration: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
        return (try await keys.sign(claims), expiresAt)
    }

    /// Who `token` admits to which session, or why it is refused.
    public func verifyCallToken(_ token: String) async -> Result<CallGrant, TokenError> {
        await verified(token, as: CallTokenClaims.self).flatMap { claims in
            guard let sessionId = claims.sid else { return .failure(.wrongKind) }
            return .success(CallGrant(uid: claims.sub.value, sessionId: sessionId))
        }
    }
}
