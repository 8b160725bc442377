import JWTKit

/// The algorithms a connection token may name: HS256 with the shared secret, RS256, ES256 and
/// EdDSA (Ed25519) with a public key. Anything else (`none`, HS384, PS256, RS512, ES384, ...) is
/// refused before a signature is looked at.
public enum TokenAlgorithm: String, CaseIterable, Sendable {
    case hs256 = "HS256"
    case rs256 = "RS256"
    case es256 = "ES256"
    case eddsa = "EdDSA"

    /// The algorithms a public key may be bound to.
    static let asymmetric: [TokenAlgorithm] = [.rs256, .es256, .eddsa]

    /// The key type it needs, as operators and errors name it.
    var keyType: String {
        switch self {
        case .hs256: "a shared secret"
        case .rs256: "an RSA key"
        case .es256: "an EC P-256 key"
        case .eddsa: "an Ed25519 key"
        }
    }
}

/// One public key connection tokens may be verified with, bound to exactly one algorithm.
///
/// Its jwt-kit collection holds this key alone, so whatever `kid` a token names, jwt-kit can
/// verify it with no other key: which key a token gets is decided before, by ``PublicKeyRing``.
/// Immutable; any thread.
public struct TokenKey: Sendable {
    /// The key id a token's `kid` names it by: a JWK's `kid`, a PEM file's name without its
    /// extension.
    public let kid: String
    /// The one algorithm tokens verified with it must name.
    public let algorithm: TokenAlgorithm
    /// Where it came from, for logs and errors: a file or the JWKS URL.
    public let origin: String
    /// A collection holding only this key.
    let verifier: JWTKeyCollection

    /// The key `kid` from `origin`, verifying `algorithm` with `verifier`, which must hold it alone.
    init(kid: String, algorithm: TokenAlgorithm, origin: String, verifier: JWTKeyCollection) {
        self.kid = kid
        self.algorithm = algorithm
        self.origin = origin
        self.verifier = verifier
    }

    /// Longest `kid` accepted, in UTF-8 bytes.
    static let maxKIDBytes = 256

    /// RSA moduli from 2048 bits (jwt-kit's floor) to 8192 bits: a bigger one makes every
    /// verification slower for no safety anyone needs.
    static let maxRSABits = 8192

    /// A key holding `rsa`, bound to RS256. Throws for a modulus over ``maxRSABits``.
    static func rsa(_ key: Insecure.RSA.PublicKey, kid: String, origin: String) async throws(TokenKeyError) -> TokenKey {
        let bits = (try? key.getKeyPrimitives().modulus.drop(while: { $0 == 0 }).count).map { $0 * 8 } ?? 0
        guard bits <= maxRSABits else {
            throw TokenKeyError("\(origin): the RSA key \(kid) has \(bits) bits; at most \(maxRSABits) are accepted")
        }
        let verifier = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256)
        return TokenKey(kid: kid, algorithm: .rs256, origin: origin, verifier: verifier)
    }

    /// A key holding `ecdsa`, bound to ES256.
    static func es256(_ key: ES256PublicKey, kid: String, origin: String) async -> TokenKey {
        TokenKey(kid: kid, algorithm: .es256, origin: origin, verifier: await JWTKeyCollection().add(ecdsa: key))
    }

    /// A key holding `eddsa` (Ed25519), bound to EdDSA.
    static func eddsa(_ key: EdDSA.PublicKey, kid: String, origin: String) async -> TokenKey {
        TokenKey(kid: kid, algorithm: .eddsa, origin: origin, verifier: await JWTKeyCollection().add(eddsa: key))
    }

    /// Why `kid` cannot name a key, or nil when it can: empty, or longer than ``maxKIDBytes``.
    static func problem(withKID kid: String) -> String? {
        if kid.isEmpty { return "an empty kid" }
        if kid.utf8.count > maxKIDBytes { return "a kid longer than \(maxKIDBytes) bytes" }
        return nil
    }
}

/// Why the public keys an operator configured cannot be used: a message naming the file or URL
/// and what is wrong with it, for the line `serve` prints before it exits (or the log line of a
/// refresh that kept the keys it had).
public struct TokenKeyError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
