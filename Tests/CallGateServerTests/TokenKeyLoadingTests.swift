@testable import CallGateServer
import Foundation
import TestSupport
import Testing

/// Public keys as the operator gives them (PEM files, a JWKS file, a JWKS URL's settings): what
/// each key is bound to, and a clear refusal, naming the file, for everything else.
@Suite struct TokenKeyLoadingTests {
    typealias Fixture = PublicKeyFixture

    /// The error loading `configuration` throws, or nil when it loads.
    static func loadError(_ configuration: TokenKeyConfiguration) async -> String? {
        do {
            _ = try await PublicKeyRing.load(configuration, logger: Fixture.logger)
            return nil
        } catch {
            return error.description
        }
    }

    /// The error loading a PEM file named `name` holding `text` throws.
    static func pemError(_ text: String, name: String = "key.pem") async throws -> String? {
        let folder = try Fixture.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = TokenKeyConfiguration()
        configuration.pemFiles = [path]
        return await loadError(configuration)
    }

    /// The error loading a JWKS file of `bytes` throws.
    static func jwksError(_ bytes: Data) async throws -> String? {
        let folder = try Fixture.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("jwks.json").path
        try bytes.write(to: URL(fileURLWithPath: path))
        var configuration = TokenKeyConfiguration()
        configuration.jwksFile = path
        return await loadError(configuration)
    }

    @Test func nothingConfiguredIsNoRing() async throws {
        #expect(try await PublicKeyRing.load(TokenKeyConfiguration(), logger: Fixture.logger) == nil)
    }

    @Test func eachPEMKeyIsBoundToItsTypesAlgorithmUnderItsFileName() async throws {
        let ring = try await Fixture.ringFromPEM([("2025-06", .rsa), ("mobile.v2", .ec), ("edge", .ed25519)])
        let bound = Dictionary(uniqueKeysWithValues: ring.all.map { ($0.kid, $0.algorithm) })
        #expect(bound == ["2025-06": .rs256, "mobile.v2": .es256, "edge": .eddsa])
    }

    @Test func anRSAPublicKeyInPKCS1FormLoadsToo() async throws {
        let folder = try Fixture.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let spki = folder.appendingPathComponent("spki.pem").path
        let pkcs1 = folder.appendingPathComponent("legacy.pem").path
        try TestKeyPair.of(.rsa).publicPEM.write(toFile: spki, atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(["openssl", "rsa", "-pubin", "-in", spki, "-RSAPublicKey_out", "-out", pkcs1])
        #expect(run.exitCode == 0, "\(run)")
        #expect(try String(contentsOfFile: pkcs1, encoding: .utf8).hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
        var configuration = TokenKeyConfiguration()
        configuration.pemFiles = [pkcs1]
        let ring = try #require(try await PublicKeyRing.load(configuration, logger: Fixture.logger))
        #expect(ring.all.map { "\($0.kid) \($0.algorithm.rawValue)" } == ["legacy RS256"])
        let service = try await Fixture.service(ring)
        #expect(await service.verify(try await Fixture.token(.rsa, kid: "legacy")) == .success(Fixture.alice))
    }

    @Test func pemFilesThatHoldNoUsablePublicKeyAreRefusedSayingWhy() async throws {
        let rsa = try TestKeyPair.of(.rsa)
        let cases: [(String, String)] = [
            (rsa.privatePEM, "holds a private key"),
            ("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "holds a certificate"),
            (rsa.publicPEM + (try TestKeyPair.of(.ec).publicPEM), "holds 2 PEM blocks"),
            ("just some text", "holds no PEM block"),
            ("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n", "not base64"),
            ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "an unreadable key"),
            (try TestKeyPair.of(.p384).publicPEM, "holds an EC P-384 key"),
            (try TestKeyPair.of(.rsa1024).publicPEM, "smaller than 2048 bits"),
        ]
        for (text, reason) in cases {
            let error = try await Self.pemError(text)
            #expect(error?.contains(reason) == true, "\(reason): \(error ?? "loaded")")
            #expect(error?.contains("--jwt-public-key") == true, "names the flag and file")
        }
    }

    @Test func unreadableOversizedAndDuplicatePEMFilesAreRefused() async throws {
        var missing = TokenKeyConfiguration()
        missing.pemFiles = ["/nonexistent/key.pem"]
        #expect(await Self.loadError(missing)?.contains("cannot read the file") == true)
        let huge = String(repeating: "A", count: PublicKeyRing.maxPEMBytes + 1)
        #expect(try await Self.pemError(huge)?.contains("over \(PublicKeyRing.maxPEMBytes) bytes") == true)

        let first = try Fixture.directory()
        let second = try Fixture.directory()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        var twins = TokenKeyConfiguration()
        for (folder, kind) in [(first, TestKeyPair.Kind.rsa), (second, .ec)] {
            let path = folder.appendingPathComponent("current.pem").path
            try TestKeyPair.of(kind).publicPEM.write(toFile: path, atomically: true, encoding: .utf8)
            twins.pemFiles.append(path)
        }
        #expect(await Self.loadError(twins)?.contains("the kid current is also the kid of a key") == true)
    }

    @Test func aJWKSBindsEachKeyByItsTypeAndSkipsWhatTheGatewayDoesNotVerifyWith() async throws {
        let usable = try [TestKeyPair.Kind.rsa, .ec, .ed25519].map { try TestKeyPair.of($0).jwk(kid: $0.rawValue) }
        let skipped = [
            ["kty": "oct", "kid": "shared", "k": "c2VjcmV0"],
            try TestKeyPair.of(.rsa).jwk(kid: "encryption", ["use": "enc"]),
            try TestKeyPair.of(.p384).jwk(kid: "p384"),
            try TestKeyPair.of(.rsa).jwk(kid: "pss", ["alg": "PS256"]),
            try TestKeyPair.of(.ec).jwk(kid: "x").filter { $0.key != "kid" },
            ["kty": "OKP", "crv": "X25519", "kid": "agreement", "x": "AAAA"],
        ]
        let ring = try await Fixture.ringFromJWKS(try TestKeyPair.jwks(usable + skipped))
        let bound = Dictionary(uniqueKeysWithValues: ring.all.map { ($0.kid, $0.algorithm) })
        #expect(bound == ["rsa": .rs256, "ec": .es256, "ed25519": .eddsa])
        let withAlg = try [TestKeyPair.of(.rsa).jwk(kid: "a", ["alg": "RS256", "use": "sig"])]
        #expect(try await Fixture.ringFromJWKS(try TestKeyPair.jwks(withAlg)).all.map(\.algorithm) == [.rs256])
    }

    @Test func aJWKSThatContradictsItselfOrHoldsSecretsIsRefused() async throws {
        let rsa = try TestKeyPair.of(.rsa)
        let ec = try TestKeyPair.of(.ec)
        let cases: [([[String: String]], String)] = [
            ([try ec.jwk(kid: "ec", ["alg": "RS256"])], "says alg RS256 but is kty EC crv P-256"),
            ([try rsa.jwk(kid: "rsa", ["alg": "EdDSA"])], "says alg EdDSA but is kty RSA"),
            ([try ec.jwk(kid: "ec", ["d": "AAAA"])], "is a private key"),
            ([try rsa.jwk(kid: "same"), try ec.jwk(kid: "same")], "two keys have the kid same"),
            ([try rsa.jwk(kid: "rsa", ["n": "AAAA"])], "not a well-formed RSA public key"),
            ([try ec.jwk(kid: "ec", ["x": "AAAA"])], "not a well-formed EC P-256 public key"),
            ([try ec.jwk(kid: "ec", ["y": try TestKeyPair.of(.ec).jwk(kid: "ec")["x"] ?? ""])], "not a well-formed EC P-256"),
            ([try TestKeyPair.of(.ed25519).jwk(kid: "ed", ["x": "AAAA"])], "not a well-formed Ed25519"),
            ([["kty": "RSA", "kid": "small", "e": "AQAB", "n": TestKeyPair.base64URL([0xC1] + [UInt8](repeating: 0x5B, count: 127))]],
             "not a well-formed RSA public key of 2048"),
            ([["kty": "RSA", "kid": "huge", "e": "AQAB", "n": TestKeyPair.base64URL([0xC1] + [UInt8](repeating: 0x5B, count: 1024))]],
             "not a well-formed RSA public key of 2048 to 8192 bits"),
            ([], "holds no key the gateway verifies with"),
            ([["kty": "oct", "kid": "k", "k": "c2VjcmV0"]], "holds no key the gateway verifies with"),
        ]
        for (keys, reason) in cases {
            let error = try await Self.jwksError(try TestKeyPair.jwks(keys))
            #expect(error?.contains(reason) == true, "\(reason): \(error ?? "loaded")")
            #expect(error?.contains("--jwt-jwks-file") == true)
        }
    }

    @Test func hostileJWKSFilesAreRefusedBeforeTheyCostMuch() async throws {
        let key = try TestKeyPair.of(.ec).jwk(kid: "k")
        let many = try TestKeyPair.jwks((0..<10_000).map { index in key.merging(["kid": "k\(index)"]) { $1 } })
        #expect(many.count > JWKSDocument.maxBytes)
        #expect(try await Self.jwksError(many)?.contains("over \(JWKSDocument.maxBytes) bytes") == true)
        let hundredAndOne = try TestKeyPair.jwks((0...JWKSDocument.maxKeys).map { index in key.merging(["kid": "k\(index)"]) { $1 } })
        #expect(try await Self.jwksError(hundredAndOne)?.contains("lists 101 keys; at most 100") == true)
        let deep = Data(("{\"keys\":" + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}").utf8)
        #expect(try await Self.jwksError(deep)?.contains("not a JWKS") == true)
        for text in ["", "null", "[]", "{\"keys\": {}}", "{\"keys\": [{\"kty\": 1}]}", "\u{FEFF}garbage"] {
            #expect(try await Self.jwksError(Data(text.utf8))?.contains("not a JWKS") == true, "\(text)")
        }
    }

    @Test func theJWKSURLMustBeHTTPSOrOnThisHostAndItsTimesInRange() {
        func problem(_ change: (inout TokenKeyConfiguration) -> Void) -> String? {
            var configuration = TokenKeyConfiguration()
            change(&configuration)
            return configuration.problem()
        }
        #expect(problem { $0.jwksURL = "https://auth.example.com/.well-known/jwks.json" } == nil)
        #expect(problem { $0.jwksURL = "http://127.0.0.1:8000/jwks.json" } == nil)
        #expect(problem { $0.jwksURL = "http://localhost/jwks.json" } == nil)
        #expect(problem { $0.jwksURL = "http://auth.example.com/jwks.json" }?.contains("must be https://") == true)
        #expect(problem { $0.jwksURL = "ftp://auth.example.com/jwks.json" }?.contains("must be https://") == true)
        #expect(problem { $0.jwksURL = "https://user:pw@auth.example.com/jwks.json" }?.contains("credentials") == true)
        #expect(problem { $0.jwksURL = "jwks.json" }?.contains("not a URL") == true)
        #expect(problem { $0.jwksRefreshInterval = .seconds(5) }?.contains("--jwt-jwks-refresh") == true)
        #expect(problem { $0.jwksCooldown = .seconds(0) }?.contains("--jwt-jwks-cooldown") == true)
        #expect(problem {
            $0.jwksRefreshInterval = .seconds(60)
            $0.jwksCooldown = .seconds(120)
        }?.contains("at most --jwt-jwks-refresh") == true)
    }
}
