import CallGateProtocol
import CallGateServer
import Foundation
import JWTKit
import Logging
import TestSupport

/// Public key rings for token tests, loaded the way `serve` loads them (from files in a fresh
/// directory), and the signers and forgers that go with them.
enum PublicKeyFixture {
    static let alice = User(uid: "alice", name: "Alice")
    static let logger = Logger(label: "public-key-tests")

    /// A fresh directory, removed by the caller.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("callgate-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A ring of the public keys of `kinds`, each in a PEM file named `<kid>.pem`.
    static func ringFromPEM(_ keys: [(kid: String, kind: TestKeyPair.Kind)]) async throws -> PublicKeyRing {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = TokenKeyConfiguration()
        for (kid, kind) in keys {
            let path = folder.appendingPathComponent("\(kid).pem").path
            try TestKeyPair.of(kind).publicPEM.write(toFile: path, atomically: true, encoding: .utf8)
            configuration.pemFiles.append(path)
        }
        return try requireRing(await PublicKeyRing.load(configuration, logger: logger))
    }

    /// A ring of the JWKS `jwks`, read from a file.
    static func ringFromJWKS(_ jwks: Data) async throws -> PublicKeyRing {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = TokenKeyConfiguration()
        let path = folder.appendingPathComponent("jwks.json").path
        try jwks.write(to: URL(fileURLWithPath: path))
        configuration.jwksFile = path
        return try requireRing(await PublicKeyRing.load(configuration, logger: logger))
    }

    /// A service that verifies connection tokens with `ring` only (its secret signs call tokens).
    static func service(_ ring: PublicKeyRing, acceptingSecret: Bool = false) async throws -> TokenService {
        try await TokenService(secret: TokenServiceTests.secret, publicKeys: ring, secretVerifiesConnections: acceptingSecret)
    }

    /// A token for alice signed with the private key of `kind`, naming `kid`.
    static func token(_ kind: TestKeyPair.Kind, kid: String?, ttl: Int = 3600, now: Date = .now) async throws -> String {
        try await PrivateKeyTokenSigner(pem: try TestKeyPair.of(kind).privatePEM, kid: kid).mint(user: alice, ttl: ttl, now: now).token
    }

    /// Valid claims for alice, one hour ahead.
    static func claims() -> TokenClaims {
        TokenClaims(user: alice, issuedAt: Date(), expiration: Date().addingTimeInterval(3600))
    }

    /// A token whose header is exactly `header` (JSON), signed by `keys` over it.
    static func signed(_ header: JWTHeader, by keys: JWTKeyCollection) async throws -> String {
        try await keys.sign(claims(), header: header)
    }

    /// A header naming `alg` and `kid`.
    static func header(alg: String, kid: String?) -> JWTHeader {
        var header = JWTHeader()
        header.alg = alg
        header.kid = kid
        return header
    }

    struct Missing: Error {}

    private static func requireRing(_ ring: PublicKeyRing?) throws -> PublicKeyRing {
        guard let ring else { throw Missing() }
        return ring
    }
}
