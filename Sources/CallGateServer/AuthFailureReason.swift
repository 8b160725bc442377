/// Why a socket failed to authenticate: the `reason` label of `callgate_auth_failures_total`.
enum AuthFailureReason: String, CaseIterable {
    /// The token is not a well-formed JWT with the required claims.
    case malformed
    /// The token names an algorithm other than HS256.
    case wrongAlgorithm = "wrong_algorithm"
    /// The signature does not match the gateway's secret.
    case badSignature = "bad_signature"
    /// The token has expired.
    case expired
    /// `nbf` or `iat` is in the future.
    case notYetValid = "not_yet_valid"
    /// `iss` is not the configured issuer.
    case wrongIssuer = "wrong_issuer"
    /// `aud` does not name the configured audience.
    case wrongAudience = "wrong_audience"
    /// `sub` is empty.
    case missingSubject = "missing_subject"
    /// `sub` is not a valid uid.
    case invalidSubject = "invalid_subject"
    /// `name` is not a valid name.
    case invalidName = "invalid_name"
    /// `avatar` is not a valid picture URL.
    case invalidAvatar = "invalid_avatar"
    /// A call token was sent to `connect`.
    case wrongKind = "wrong_kind"
    /// No `connect` succeeded before the deadline; the socket was closed with 4001.
    case connectTimeout = "connect_timeout"
    /// A connected socket's token expired without a `refreshToken`; it was closed with 4003.
    case tokenExpired = "token_expired"

    /// The reason for a token `connect` refused; nil for `invalidLifetime`, which only minting
    /// reports.
    init?(_ error: TokenError) {
        switch error {
        case .malformed: self = .malformed
        case .wrongAlgorithm: self = .wrongAlgorithm
        case .badSignature: self = .badSignature
        case .expired: self = .expired
        case .notYetValid: self = .notYetValid
        case .wrongIssuer: self = .wrongIssuer
        case .wrongAudience: self = .wrongAudience
        case .missingSubject: self = .missingSubject
        case .invalidSubject: self = .invalidSubject
        case .invalidName: self = .invalidName
        case .invalidAvatar: self = .invalidAvatar
        case .wrongKind: self = .wrongKind
        case .invalidLifetime: return nil
        }
    }
}
