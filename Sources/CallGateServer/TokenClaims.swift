import CallGateCore
import CallGateProtocol
import Foundation
import JWTKit

/// The claims of a CallGate connection token: who the socket belongs to and until when.
///
/// `sub` is the uid, `name` defaults to the uid when the token has none, `avatar` is optional and
/// `exp` is required; `nbf`, `iat`, `iss` and `aud` are checked when present or required (see
/// ``TokenService``). Decoded and checked by ``TokenService`` on whatever thread runs its async
/// work; a plain value, usable anywhere.
public struct TokenClaims: JWTPayload, Equatable {
    /// The uid.
    public var sub: SubjectClaim
    /// The display name; absent means "use the uid".
    public var name: String?
    /// An optional picture URL.
    public var avatar: String?
    /// When the token stops being accepted.
    public var exp: ExpirationClaim
    /// Absent in connection tokens; a call token's `typ` makes it unusable here.
    public var typ: String?
    /// Not to be accepted before this time (with ``TokenService/leeway``).
    public var nbf: NotBeforeClaim?
    /// When the token was issued: one issued in the future (beyond the leeway) is refused.
    public var iat: IssuedAtClaim?
    /// Who issued it; must equal `--jwt-issuer` when that is set.
    public var iss: IssuerClaim?
    /// Whom it is for; must include `--jwt-audience` when that is set.
    public var aud: AudienceClaim?

    /// Claims for `user` issued at `issuedAt` that expire at `expiration`, naming `issuer` and
    /// `audience` when given.
    public init(user: User, issuedAt: Date, expiration: Date, issuer: String? = nil, audience: String? = nil) {
        self.sub = SubjectClaim(value: user.uid)
        self.name = user.name
        self.avatar = user.avatar
        self.exp = ExpirationClaim(value: expiration)
        self.iat = IssuedAtClaim(value: issuedAt)
        self.iss = issuer.map { IssuerClaim(value: $0) }
        self.aud = audience.map { AudienceClaim(value: $0) }
    }

    /// Claims for `user` issued at `now` (whole seconds) that expire `ttl` seconds later; throws
    /// ``TokenError`` for a user a gateway would refuse (bad uid or name) or a `ttl` below 1, so
    /// a minted token is always accepted until it expires.
    static func minted(
        for user: User, ttl: Int, now: Date, issuer: String?, audience: String?
    ) throws(TokenError) -> TokenClaims {
        if let problem = problem(with: user) { throw problem }
        guard ttl >= 1 else { throw .invalidLifetime }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        return TokenClaims(
            user: user, issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
            expiration: Date(timeIntervalSince1970: TimeInterval(issuedAt + Int64(ttl))), issuer: issuer, audience: audience)
    }

    /// Why these claims are not accepted at `now` by a gateway expecting `issuer` and
    /// `audience` (nil: not checked), or nil when they are: not yet valid (`nbf` or `iat` later
    /// than `now` plus `leeway`), another issuer, or an audience without this gateway.
    func problem(issuer: String?, audience: String?, now: Date, leeway: TimeInterval) -> TokenError? {
        let latest = now.addingTimeInterval(leeway)
        if let nbf, nbf.value > latest { return .notYetValid }
        if let iat, iat.value > latest { return .notYetValid }
        if let issuer, iss?.value != issuer { return .wrongIssuer }
        if let audience, aud?.value.contains(audience) != true { return .wrongAudience }
        return nil
    }

    /// The latest `exp` a socket may live to, Unix seconds: the end of year 9999. A token may say
    /// any number; what the gateway schedules and reports is clamped to this.
    static let latestExpiry: Int64 = 253_402_300_799

    /// When the token expires, Unix seconds (rounded down), clamped to 0...``latestExpiry``.
    var expiresAt: Int64 {
        let seconds = exp.value.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return seconds >= Double(Self.latestExpiry) ? Self.latestExpiry : Int64(seconds)
    }

    /// The user this token stands for, with `name` defaulting to the uid.
    public var user: User {
        User(uid: sub.value, name: name ?? sub.value, avatar: avatar)
    }

    /// Called by jwt-kit after the signature matched: rejects expired tokens and claims that do
    /// not make a valid ``User``.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard typ == nil else { throw TokenError.wrongKind }
        try exp.verifyNotExpired()
        if let problem = TokenClaims.problem(with: user) {
            throw problem
        }
    }

    /// Why `user` cannot be carried by a token, or nil when it can.
    static func problem(with user: User) -> TokenError? {
        if user.uid.isEmpty { return .missingSubject }
        if !FieldRules.isValidID(user.uid) { return .invalidSubject }
        if !FieldRules.isValidName(user.name) { return .invalidName }
        if let avatar = user.avatar, !FieldRules.isValidPicture(avatar) { return .invalidAvatar }
        return nil
    }
}

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

/// What a verified call token grants: this uid may join this session.
public struct CallGrant: Equatable, Sendable {
    public var uid: String
    public var sessionId: String

    public init(uid: String, sessionId: String) {
        self.uid = uid
        self.sessionId = sessionId
    }
}
