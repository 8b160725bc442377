import CallGateProtocol
import Foundation
import JWTKit

/// A JSON Web Key Set (RFC 7517, `{"keys": [...]}`) read into the keys connection tokens may be
/// verified with: from `--jwt-jwks-file` or `--jwt-jwks-url`.
///
/// Each key is bound to one algorithm by its `kty` and `crv` (RSA: RS256, EC P-256: ES256, OKP
/// Ed25519: EdDSA), and its `alg`, when present, must agree. The key is built from its public
/// components here, never from the token's header, so a token cannot make a key verify with
/// another algorithm. Keys the gateway does not verify with are skipped and named (no `kid`,
/// `use` other than `sig`, an `oct` secret, another curve or algorithm); a key it would use but
/// cannot (bad encoding, a private key, a `kid` seen twice) refuses the whole set, and so does a
/// set with no usable key. Pure functions; any thread.
enum JWKSDocument {
    /// Largest JWKS read, file or response: real ones are a few KiB.
    static let maxBytes = 1 << 20
    /// Most keys a JWKS may list, usable or not: identity providers publish a handful.
    static let maxKeys = 100

    /// The usable keys of a set, and one line for each key skipped.
    struct Keys: Sendable {
        var keys: [TokenKey]
        var skipped: [String]
    }

    /// The members of a JWK the gateway reads; others (`x5c`, `key_ops`, ...) are ignored.
    struct Entry: Decodable {
        var kty: String?
        var kid: String?
        var use: String?
        var alg: String?
        var crv: String?
        var n: String?
        var e: String?
        var x: String?
        var y: String?
        var d: String?
    }

    private struct Document: Decodable {
        var keys: [Entry]
    }

    /// The keys of the JWKS `bytes`, `origin` (the file or URL) named in every error.
    static func keys(from bytes: Data, origin: String) async throws(TokenKeyError) -> Keys {
        guard bytes.count <= maxBytes else {
            throw TokenKeyError("\(origin): the JWKS is \(bytes.count) bytes; at most \(maxBytes) are read")
        }
        guard !JSONNesting.exceeds(JSONNesting.maxDepth, in: bytes),
            let document = try? JSONDecoder().decode(Document.self, from: bytes)
        else {
            throw TokenKeyError("\(origin): not a JWKS ({\"keys\": [...]} of JSON Web Keys with string members)")
        }
        guard document.keys.count <= maxKeys else {
            throw TokenKeyError("\(origin): the JWKS lists \(document.keys.count) keys; at most \(maxKeys) are read")
        }
        var found = Keys(keys: [], skipped: [])
        var seen = Set<String>()
        for (index, entry) in document.keys.enumerated() {
            let name = entry.kid.map { "key \($0)" } ?? "key #\(index + 1)"
            switch try usability(of: entry, named: name, origin: origin) {
            case .skip(let reason):
                found.skipped.append("\(name): \(reason)")
            case .use(let algorithm, let kid):
                guard seen.insert(kid).inserted else {
                    throw TokenKeyError("\(origin): two keys have the kid \(kid)")
                }
                found.keys.append(try await key(entry, kid: kid, algorithm: algorithm, origin: origin))
            }
        }
        guard !found.keys.isEmpty else {
            let reasons = found.skipped.isEmpty ? "" : " (\(found.skipped.joined(separator: "; ")))"
            throw TokenKeyError("\(origin): the JWKS holds no key the gateway verifies with: RS256, ES256 or EdDSA, with a kid\(reasons)")
        }
        return found
    }

    /// Whether the gateway verifies with `entry`.
    private enum Usability {
        case use(TokenAlgorithm, kid: String)
        case skip(String)
    }

    /// Binds `entry` to its algorithm, or says why it is skipped; throws for a key it would use
    /// but that contradicts itself or is private.
    private static func usability(of entry: Entry, named name: String, origin: String) throws(TokenKeyError) -> Usability {
        let algorithm: TokenAlgorithm? =
            switch (entry.kty, entry.crv) {
            case ("RSA", _): .rs256
            case ("EC", "P-256"): .es256
            case ("OKP", "Ed25519"): .eddsa
            default: nil
            }
        if let named = entry.alg.flatMap(TokenAlgorithm.init(rawValue:)), named != .hs256, named != algorithm {
            throw TokenKeyError(
                "\(origin): \(name) says alg \(named.rawValue) but is \(describe(entry)); \(named.rawValue) needs \(named.keyType)")
        }
        guard let algorithm else { return .skip("\(describe(entry)) is not a key type the gateway verifies with") }
        if let alg = entry.alg, alg != algorithm.rawValue { return .skip("alg \(alg) is not accepted") }
        if let use = entry.use, use != "sig" { return .skip("its use is \(use), not sig") }
        guard let kid = entry.kid else { return .skip("it has no kid") }
        if let problem = TokenKey.problem(withKID: kid) { return .skip("it has \(problem)") }
        guard entry.d == nil else {
            throw TokenKeyError("\(origin): \(name) is a private key; publish only the public keys")
        }
        return .use(algorithm, kid: kid)
    }

    /// `kty` and `crv` as an error names them.
    private static func describe(_ entry: Entry) -> String {
        "kty \(entry.kty ?? "(none)")" + (entry.crv.map { " crv \($0)" } ?? "")
    }

    /// The key `entry` holds, bound to `algorithm`.
    private static func key(
        _ entry: Entry, kid: String, algorithm: TokenAlgorithm, origin: String
    ) async throws(TokenKeyError) -> TokenKey {
        let expected =
            switch algorithm {
            case .rs256: "RSA public key of 2048 to \(TokenKey.maxRSABits) bits"
            case .es256: "EC P-256 public key"
            case .eddsa, .hs256: "Ed25519 public key"
            }
        let broken = TokenKeyError("\(origin): key \(kid) is not a well-formed \(expected)")
        do {
            switch algorithm {
            case .rs256:
                guard let n = entry.n, let e = entry.e, let modulus = Base64URL.decode(n[...]),
                    modulus.drop(while: { $0 == 0 }).count * 8 <= TokenKey.maxRSABits
                else { throw broken }
                return try await TokenKey.rsa(
                    try Insecure.RSA.PublicKey(modulus: n, exponent: e), kid: kid, origin: origin)
            case .es256:
                guard let x = entry.x, let y = entry.y, Base64URL.decode(x[...])?.count == 32,
                    Base64URL.decode(y[...])?.count == 32
                else { throw broken }
                return await TokenKey.es256(try ES256PublicKey(parameters: (x, y)), kid: kid, origin: origin)
            case .eddsa:
                guard let x = entry.x, Base64URL.decode(x[...])?.count == 32 else { throw broken }
                return await TokenKey.eddsa(try EdDSA.PublicKey(x: x, curve: .ed25519), kid: kid, origin: origin)
            case .hs256:
                throw broken
            }
        } catch let error as TokenKeyError {
            throw error
        } catch {
            throw broken
        }
    }
}
