import CallGateProtocol
import Foundation
import JWTKit

/// The claims of a call token: one user's pass into one call session, for a short time.
///
/// Signed with the same secret as connection tokens, so `typ` tells them apart: a call token
/// never opens a connection and a connection token never joins a session.
public struct CallTokenClaims: JWTPayload, Equatable {
    /// The value of `typ` in every call token.
    public static let type = "call"

    /// The uid the token was issued to.
    public var sub: SubjectClaim
    /// The session it admits to (optional only so that a connection token decodes and is
    /// refused as the wrong kind rather than as malformed).
    public var sid: String?
    /// ``type`` in a call token.
    public var typ: String?
    /// When the token stops being accepted.
    public var exp: ExpirationClaim

    /// Claims admitting `uid` to `sessionId` until `expiration`.
    public init(uid: String, sessionId: String, expiration: Date) {
        sub = SubjectClaim(value: uid)
        sid = sessionId
        typ = Self.type
        exp = ExpirationClaim(value: expiration)
    }

    /// Called by jwt-kit after the signature matched: rejects expired tokens and other kinds.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard typ == Self.type, sid != nil else { throw TokenError.wrongKind }
        try exp.verifyNotExpired()
    }
}
