import Foundation
import JWTKit
import Synchronization

/// A key pair for token tests, made by `openssl genpkey` as an operator makes one, with its
/// public key as PEM and as a JWK. Each kind is made once per test process.
public struct TestKeyPair: Sendable {
    /// The kinds the tests use: the three the gateway accepts and two it refuses.
    public enum Kind: String, CaseIterable, Sendable {
        case rsa, ec, ed25519
        /// An EC key on P-384: ES384, which the gateway does not accept.
        case p384
        /// An RSA key of 1024 bits, below jwt-kit's floor.
        case rsa1024

        /// The `openssl genpkey` options that make it.
        var options: [String] {
            switch self {
            case .rsa: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
            case .rsa1024: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]
            case .ec: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
            case .p384: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]
            case .ed25519: ["-algorithm", "ed25519"]
            }
        }

        /// The JWT algorithm a token signed with it names.
        public var algorithm: String {
            switch self {
            case .rsa, .rsa1024: "RS256"
            case .ec: "ES256"
            case .p384: "ES384"
            case .ed25519: "EdDSA"
            }
        }
    }

    public let kind: Kind
    /// The private key, PKCS #8 PEM.
    public let privatePEM: String
    /// The public key, SubjectPublicKeyInfo PEM (`openssl pkey -pubout`).
    public let publicPEM: String

    private static let made = Mutex<[Kind: TestKeyPair]>([:])

    /// The pair of `kind`, made on first use (under the lock: tests running at once must all
    /// get the same pair).
    public static func of(_ kind: Kind) throws -> TestKeyPair {
        try made.withLock { made in
            if let pair = made[kind] { return pair }
            let pair = try make(kind)
            made[kind] = pair
            return pair
        }
    }

    /// A new pair of `kind` (not the shared one): for a rotation, a key the gateway never saw.
    public static func make(_ kind: Kind) throws -> TestKeyPair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("callgate-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let privatePath = directory.appendingPathComponent("private.pem").path
        let publicPath = directory.appendingPathComponent("public.pem").path
        for arguments in [
            ["openssl", "genpkey"] + kind.options + ["-out", privatePath],
            ["openssl", "pkey", "-in", privatePath, "-pubout", "-out", publicPath],
        ] {
            let run = try CommandRun.runBlocking(arguments)
            guard run.exitCode == 0 else { throw KeyGenerationFailed(run: run) }
        }
        return TestKeyPair(
            kind: kind, privatePEM: try String(contentsOfFile: privatePath, encoding: .utf8),
            publicPEM: try String(contentsOfFile: publicPath, encoding: .utf8))
    }

    struct KeyGenerationFailed: Error, CustomStringConvertible {
        let run: CommandRun
        var description: String { "openssl could not make a key: \(run)" }
    }

    /// The public key as a JWK with `kid` (and `extra` members, which replace computed ones).
    public func jwk(kid: String, _ extra: [String: String] = [:]) throws -> [String: String] {
        var members: [String: String]
        switch kind {
        case .rsa, .rsa1024:
            let primitives = try Insecure.RSA.PublicKey(pem: publicPEM).getKeyPrimitives()
            members = ["kty": "RSA", "n": Self.base64URL(primitives.modulus), "e": Self.base64URL(primitives.publicExponent)]
        case .ec:
            let parameters = try ES256PublicKey(pem: publicPEM).parameters
            members = ["kty": "EC", "crv": "P-256", "x": parameters?.x ?? "", "y": parameters?.y ?? ""]
        case .p384:
            let parameters = try ES384PublicKey(pem: publicPEM).parameters
            members = ["kty": "EC", "crv": "P-384", "x": parameters?.x ?? "", "y": parameters?.y ?? ""]
        case .ed25519:
            members = ["kty": "OKP", "crv": "Ed25519", "x": Self.base64URL(try EdDSA.PublicKey(pem: publicPEM).rawRepresentation)]
        }
        members["kid"] = kid
        return members.merging(extra) { $1 }
    }

    /// `{"keys": [...]}` of `keys`.
    public static func jwks(_ keys: [[String: String]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
    }

    /// Unpadded base64url.
    public static func base64URL(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
