import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import TestSupport
import Testing

/// Devices connect with tokens signed by the backend's private keys (RS256, ES256, EdDSA), the
/// gateway holding only the public keys: from PEM files and from a JWKS file.
@Suite("Public key tokens over real sockets")
struct PublicKeyConnectTests {
    static let kinds: [TestKeyPair.Kind] = [.rsa, .ec, .ed25519]

    /// A gateway that verifies connection tokens with the PEM public keys only (no secret), and
    /// the directory of its key files, which must live as long as it.
    static func publicKeyGateway() async throws -> (TestGateway, TemporaryDirectory) {
        let keys = try TemporaryDirectory()
        let files = try pemFiles(in: keys)
        let gateway = try await TestGateway {
            $0.jwtPublicKeys.pemFiles = files
            $0.secretVerifiesConnections = false
        }
        return (gateway, keys)
    }

    /// The public keys of `kinds`, each in `<kind>.pem` in `directory`.
    static func pemFiles(in directory: TemporaryDirectory) throws -> [String] {
        try kinds.map { kind in
            let path = directory.path("\(kind.rawValue).pem")
            try TestKeyPair.of(kind).publicPEM.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }

    /// A token for `uid` signed with the private key of `kind`, naming `kid`.
    static func token(_ uid: String, _ kind: TestKeyPair.Kind, kid: String?, ttl: Int = 3600) async throws -> String {
        let signer = try await PrivateKeyTokenSigner(pem: try TestKeyPair.of(kind).privatePEM, kid: kid)
        return try await signer.mint(user: User(uid: uid, name: uid.capitalized), ttl: ttl).token
    }

    /// What the gateway answered a `connect` with `token` that it refused, and how it closed.
    static func refusal(of token: String, by gateway: TestGateway) async throws -> (String, UInt16?) {
        let socket = try await gateway.socket()
        do {
            _ = try await socket.connect(token: token)
            return ("accepted", nil)
        } catch let error as ErrorBody {
            return ("\(error.code.rawValue): \(error.message)", try await socket.expectClose())
        }
    }

    @Test func devicesConnectWithEachAlgorithmFromPEMFilesAndSecretTokensAreRefused() async throws {
        let (gateway, keys) = try await Self.publicKeyGateway()
        defer { withExtendedLifetime(keys) {} }
        defer { gateway.shutdown() }
        for kind in Self.kinds {
            let device = try await gateway.socket()
            let connected = try await device.connect(token: try await Self.token("user-\(kind.rawValue)", kind, kid: kind.rawValue))
            #expect(connected.user.uid == "user-\(kind.rawValue)")
        }
        let (answer, close) = try await Self.refusal(of: try await gateway.token("mallory"), by: gateway)
        #expect(answer == "AUTH_ERR: \(TokenError.wrongAlgorithm.message)")
        #expect(close == CloseCode.unauthorized)
        let (status, body) = try await gateway.admin("POST", "/v1/tokens", json: #"{"uid":"alice"}"#)
        #expect(status == 404, "no secret to mint with: \(String(decoding: body, as: UTF8.self))")
        _ = try await gateway.scrape { $0[#"callgate_auth_failures_total{reason="wrong_algorithm"}"#] == 1 }
    }

    @Test func callTokensStillJoinSessionsWhenOnlyPublicKeysVerifyConnections() async throws {
        let (gateway, keys) = try await Self.publicKeyGateway()
        defer { withExtendedLifetime(keys) {} }
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        _ = try await alice.connect(token: try await Self.token("alice", .ed25519, kid: "ed25519"))
        let bob = try await gateway.socket()
        _ = try await bob.connect(token: try await Self.token("bob", .rsa, kid: "rsa"))
        let aliceToken = try await alice.generateToken(sessionId: "standup:keys")
        let bobToken = try await bob.generateToken(sessionId: "standup:keys")
        #expect(try await alice.joinSession(callToken: aliceToken.callToken).participants.map(\.uid) == ["alice"])
        #expect(try await bob.joinSession(callToken: bobToken.callToken).participants.map(\.uid) == ["alice", "bob"])
    }

    @Test func aJWKSFileAndTheSecretVerifySideBySide() async throws {
        let keys = try TemporaryDirectory()
        let jwks = try TestKeyPair.jwks(try Self.kinds.map { try TestKeyPair.of($0).jwk(kid: "jwk-\($0.rawValue)") })
        try jwks.write(to: URL(fileURLWithPath: keys.path("jwks.json")))
        let gateway = try await TestGateway { $0.jwtPublicKeys.jwksFile = keys.path("jwks.json") }
        defer { gateway.shutdown() }
        for kind in Self.kinds {
            let device = try await gateway.socket()
            _ = try await device.connect(token: try await Self.token("user-\(kind.rawValue)", kind, kid: "jwk-\(kind.rawValue)"))
        }
        _ = try await gateway.device("carol")
        #expect(try await Self.refusal(of: try await Self.token("eve", .ec, kid: "jwk-rsa"), by: gateway).1 == CloseCode.unauthorized)
        let (unknown, close) = try await Self.refusal(of: try await Self.token("eve", .ec, kid: "jwk-other"), by: gateway)
        #expect(unknown == "AUTH_ERR: \(TokenError.unknownKey.message)")
        #expect(close == CloseCode.unauthorized)
        _ = try await gateway.scrape {
            $0[#"callgate_auth_failures_total{reason="unknown_key"}"#] == 1
                && $0[#"callgate_auth_failures_total{reason="wrong_algorithm"}"#] == 1
        }
    }

    @Test func aPublicKeyTokenRefreshesTheSocketAndReadsTheCallLog() async throws {
        let (gateway, keys) = try await Self.publicKeyGateway()
        defer { withExtendedLifetime(keys) {} }
        defer { gateway.shutdown() }
        let alice = try await gateway.socket()
        let first = try await alice.connect(token: try await Self.token("alice", .ec, kid: "ec", ttl: 600))
        let later = try await alice.refreshToken(try await Self.token("alice", .rsa, kid: "rsa", ttl: 7200))
        #expect(later.tokenExpiresAt > first.tokenExpiresAt)
        let (status, _) = try await gateway.get("/v3.0/calls", headers: ["authToken": try await Self.token("alice", .ed25519, kid: "ed25519")])
        #expect(status == 200)
        let (refused, _) = try await gateway.get("/v3.0/calls", headers: ["authToken": try await Self.token("alice", .ed25519, kid: "rsa")])
        #expect(refused == 401)
    }
}
