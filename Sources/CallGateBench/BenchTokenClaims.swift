import JWTKit

/// The claims of a connection token as the gateway reads them: `sub` (uid), `name`, `exp`.
struct BenchTokenClaims: JWTPayload {
    var sub: SubjectClaim
    var name: String
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
