import CallGateCore
import CallGateProtocol
import Foundation
import JWTKit

/// Signs connection tokens with a private key, RS256, ES256 or EdDSA by the key's type, with a
/// `kid` in the header: what an app's backend does for a gateway that verifies with the public
/// key. `callgate token --private-key` and the tests use it; the gateway never holds a private
/// key. Sendable; any thread.
public struct PrivateKeyTokenSigner: Sendable {
    /// The algorithm the key signs with.
    public let algorithm: TokenAlgorithm
    /// The `kid` every token names; nil: none.
    public let kid: String?
    private let keys: JWTKeyCollection

    /// A signer with the private key in `pem` (PKCS #8, or PKCS #1 for RSA, SEC 1 for EC):
    /// RSA of 2048 bits or more, EC P-256 or Ed25519. Throws naming what it holds otherwise.
    public init(pem: String, kid: String?) async throws(TokenKeyError) {
        self.kid = kid
        let identifier = kid.map { JWKIdentifier(string: $0) }
        let keys = JWTKeyCollection()
        if let rsa = try? Insecure.RSA.PrivateKey(pem: pem) {
            algorithm = .rs256
            await keys.add(rsa: rsa, digestAlgorithm: .sha256, kid: identifier)
        } else if let ecdsa = try? ES256PrivateKey(pem: pem) {
            algorithm = .es256
            await keys.add(ecdsa: ecdsa, kid: identifier)
        } else if let eddsa = try? EdDSA.PrivateKey(pem: pem) {
            algorithm = .eddsa
            await keys.add(eddsa: eddsa, kid: identifier)
        } else {
            throw TokenKeyError("not an RSA (2048 bits or more), EC P-256 or Ed25519 private key in PEM")
        }
        self.keys = keys
    }

    /// A token for `user` that expires `ttl` seconds after `now` (whole seconds), carrying
    /// `issuer` and `audience` when given. Throws ``TokenError`` for a user a gateway would
    /// refuse or a `ttl` below 1.
    public func mint(
        user: User, ttl: Int, issuer: String? = nil, audience: String? = nil, now: Date = .now
    ) async throws -> (token: String, expiresAt: Int64) {
        let claims = try TokenClaims.minted(for: user, ttl: ttl, now: now, issuer: issuer, audience: audience)
        return (try await keys.sign(claims, kid: kid.map { JWKIdentifier(string: $0) }), claims.expiresAt)
    }
}
