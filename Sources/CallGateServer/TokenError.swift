import CallGateCore
/// Why a connection token was refused, or could not be minted.
///
/// The ``message`` is safe to send to a client and to log: it never contains the token.
public enum TokenError: Error, Equatable, Sendable {
    /// Not three base64url parts, undecodable JSON, or `sub`/`exp` missing or of the wrong type.
    case malformed
    /// The header names an algorithm other than HS256 (`none`, HS384, RS256, ...).
    case wrongAlgorithm
    /// The signature does not match the gateway's secret.
    case badSignature
    /// `exp` is in the past.
    case expired
    /// `nbf` or `iat` is later than now, beyond the leeway.
    case notYetValid
    /// `iss` is not the issuer the gateway was configured with.
    case wrongIssuer
    /// `aud` does not name the audience the gateway was configured with.
    case wrongAudience
    /// `sub` is empty.
    case missingSubject
    /// `sub` is not a valid uid (see ``FieldRules/isValidID(_:)``).
    case invalidSubject
    /// `name` is present but not a valid name (see ``FieldRules/isValidName(_:)``).
    case invalidName
    /// `avatar` is present but not a valid picture URL (see ``FieldRules/isValidPicture(_:)``).
    case invalidAvatar
    /// A token was asked for with a lifetime below one second (minting only).
    case invalidLifetime
    /// A call token used as a connection token, or the other way round.
    case wrongKind

    /// A human-readable reason, without the token.
    public var message: String {
        switch self {
        case .malformed: "token is not a well-formed JWT with a string sub and a numeric exp claim"
        case .wrongAlgorithm: "token algorithm must be HS256"
        case .badSignature: "token signature does not match"
        case .expired: "token has expired"
        case .notYetValid: "token is not valid yet (nbf or iat is in the future)"
        case .wrongIssuer: "token issuer (iss) is not the one this gateway accepts"
        case .wrongAudience: "token audience (aud) does not include this gateway"
        case .missingSubject: "token subject (sub) is empty"
        case .invalidSubject: "token subject (sub) \(FieldRules.idRuleDescription)"
        case .invalidName: "token name \(FieldRules.nameRuleDescription)"
        case .invalidAvatar: "token avatar \(FieldRules.pictureRuleDescription)"
        case .invalidLifetime: "token lifetime must be at least 1 second"
        case .wrongKind: "this kind of token is not accepted here (connection and call tokens are not interchangeable)"
        }
    }
}

extension TokenError: CustomStringConvertible {
    /// The same as ``message``, so interpolating an error into a log line never leaks a token.
    public var description: String { message }
}
