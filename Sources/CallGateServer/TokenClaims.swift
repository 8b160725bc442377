import CallGateCore
import CallGateProtocol
import Foundation
import JWTKit

/// The claims of a CallGate connection token: who the socket belongs to and until when.
///
/// `sub` is the uid, `name` defaults to the uid when the token has none, `avatar` is optional and
/// `exp` is required. Decoded and checked by ``TokenService`` on whatever thread runs its async
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

    /// Claims for `user` that expire at `expiration`.
    public init(user: User, expiration: Date) {
        self.sub = SubjectClaim(value: user.uid)
        self.name = user.name
        self.avatar = user.avatar
        self.exp = ExpirationClaim(value: expiration)
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
