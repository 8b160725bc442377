import CallGateProtocol
@testable import CallGateServer
import Foundation
import JWTKit
import TestSupport
import Testing

/// Connection tokens verified with public keys: each algorithm with its key, the key a `kid`
/// picks, and every way a token may try to be verified with the wrong key or algorithm.
@Suite struct PublicKeyTokenTests {
    typealias Fixture = PublicKeyFixture

    /// The three key types, one PEM file each.
    static func threeKeys() async throws -> PublicKeyRing {
        try await Fixture.ringFromPEM([("rsa-1", .rsa), ("ec-1", .ec), ("ed-1", .ed25519)])
    }

    @Test(arguments: [(TestKeyPair.Kind.rsa, "rsa-1"), (.ec, "ec-1"), (.ed25519, "ed-1")])
    func eachAlgorithmVerifiesWithTheKeyItsKidNames(kind: TestKeyPair.Kind, kid: String) async throws {
        let service = try await Fixture.service(try await Self.threeKeys())
        let token = try await Fixture.token(kind, kid: kid)
        #expect(try HandMadeJWT.object(0, of: token)["alg"] as? String == kind.algorithm)
        #expect(await service.verify(token) == .success(Fixture.alice))
        #expect(await service.verify(try await Fixture.token(kind, kid: nil)) == .success(Fixture.alice), "the one key of its algorithm")
    }

    @Test(arguments: [TestKeyPair.Kind.rsa, .ec, .ed25519])
    func eachAlgorithmVerifiesWithItsKeyFromAJWKS(kind: TestKeyPair.Kind) async throws {
        let jwks = try TestKeyPair.jwks(try TestKeyPair.Kind.allCases.filter { $0 != .rsa1024 }.map { try TestKeyPair.of($0).jwk(kid: $0.rawValue) })
        let service = try await Fixture.service(try await Fixture.ringFromJWKS(jwks))
        #expect(await service.verify(try await Fixture.token(kind, kid: kind.rawValue)) == .success(Fixture.alice))
    }

    @Test(arguments: [TestKeyPair.Kind.rsa, .ec, .ed25519])
    func aTokenSignedByAnotherKeyOfTheSameTypeHasABadSignature(kind: TestKeyPair.Kind) async throws {
        let service = try await Fixture.service(try await Self.threeKeys())
        let stranger = try TestKeyPair.make(kind)
        let kid = ["rsa": "rsa-1", "ec": "ec-1", "ed25519": "ed-1"][kind.rawValue]
        let token = try await PrivateKeyTokenSigner(pem: stranger.privatePEM, kid: kid).mint(user: Fixture.alice, ttl: 60).token
        #expect(await service.verify(token) == .failure(.badSignature))
    }

    /// The classic confusion: a verifier that takes the token's `alg` would use the public key's
    /// bytes, which everyone has, as the HMAC secret.
    @Test(arguments: [TestKeyPair.Kind.rsa, .ec, .ed25519])
    func anHS256TokenMACedWithThePublicKeyIsRefused(kind: TestKeyPair.Kind) async throws {
        let ring = try await Self.threeKeys()
        let pem = try TestKeyPair.of(kind).publicPEM
        let forger = await JWTKeyCollection().add(hmac: HMACKey(from: pem), digestAlgorithm: .sha256)
        let kid = ["rsa": "rsa-1", "ec": "ec-1", "ed25519": "ed-1"][kind.rawValue]
        let forged = try await Fixture.signed(Fixture.header(alg: "HS256", kid: kid), by: forger)
        #expect(await (try await Fixture.service(ring)).verify(forged) == .failure(.wrongAlgorithm), "HS256 is off without a secret")
        let withSecret = try await Fixture.service(ring, acceptingSecret: true)
        #expect(await withSecret.verify(forged) == .failure(.badSignature), "HS256 only ever uses the secret")
    }

    @Test func aKidOfAKeyOfAnotherTypeIsRefusedWhateverSignedIt() async throws {
        let service = try await Fixture.service(try await Self.threeKeys())
        // Signed for real by the EC key, but the header claims RS256 and names the RSA key...
        let ec = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(pem: try TestKeyPair.of(.ec).privatePEM))
        #expect(await service.verify(try await Fixture.signed(Fixture.header(alg: "RS256", kid: "ec-1"), by: ec)) == .failure(.wrongAlgorithm))
        #expect(await service.verify(try await Fixture.signed(Fixture.header(alg: "ES256", kid: "rsa-1"), by: ec)) == .failure(.wrongAlgorithm))
        // ...and a real RS256 token naming the Ed25519 key.
        #expect(await service.verify(try await Fixture.token(.rsa, kid: "ed-1")) == .failure(.wrongAlgorithm))
        #expect(await service.verify(try await Fixture.token(.ed25519, kid: "ec-1")) == .failure(.wrongAlgorithm))
    }

    /// Signed for real with the configured RSA key under a padding or hash the gateway does not
    /// accept: jwt-kit alone would verify these with a JWK that has no `alg`.
    @Test(arguments: [("PS256", DigestAlgorithm.sha256), ("RS384", .sha384), ("RS512", .sha512)])
    func validSignaturesUnderOtherRSAAlgorithmsAreRefused(alg: String, digest: DigestAlgorithm) async throws {
        let jwks = try TestKeyPair.jwks([try TestKeyPair.of(.rsa).jwk(kid: "rsa-1")])
        let service = try await Fixture.service(try await Fixture.ringFromJWKS(jwks))
        let key = try Insecure.RSA.PrivateKey(pem: try TestKeyPair.of(.rsa).privatePEM)
        let signer =
            alg.hasPrefix("PS")
            ? await JWTKeyCollection().add(pss: key, digestAlgorithm: digest)
            : await JWTKeyCollection().add(rsa: key, digestAlgorithm: digest)
        let token = try await Fixture.signed(Fixture.header(alg: alg, kid: "rsa-1"), by: signer)
        let unpinned = try await JWTKeyCollection().add(jwksJSON: String(decoding: jwks, as: UTF8.self))
        _ = try await unpinned.verify(token, as: TokenClaims.self)
        #expect(await service.verify(token) == .failure(.wrongAlgorithm))
    }

    @Test(arguments: ["none", "None", "ES384", "ES512", "PS384", "HS384", "HS512", "Ed25519", "ed25519", "rs256", ""])
    func algorithmsOutsideTheListAreRefusedBeforeTheSignature(alg: String) async throws {
        let service = try await Fixture.service(try await Self.threeKeys(), acceptingSecret: true)
        let token = HandMadeJWT.token(
            header: #"{"alg":"\#(alg)","kid":"ec-1"}"#, payload: #"{"sub":"alice","exp":4102444800}"#, signature: "c2ln")
        #expect(await service.verify(token) == .failure(.wrongAlgorithm))
    }

    @Test func anUnknownKidIsRefused() async throws {
        let service = try await Fixture.service(try await Self.threeKeys())
        #expect(await service.verify(try await Fixture.token(.rsa, kid: "rsa-2")) == .failure(.unknownKey))
        #expect(await service.verify(try await Fixture.token(.rsa, kid: "")) == .failure(.unknownKey))
    }

    @Test func aTokenWithoutKidNeedsExactlyOneKeyOfItsAlgorithm() async throws {
        let two = try await Fixture.ringFromPEM([("old", .rsa), ("new", .rsa), ("ec-1", .ec)])
        let service = try await Fixture.service(two)
        #expect(await service.verify(try await Fixture.token(.rsa, kid: nil)) == .failure(.missingKeyID))
        #expect(await service.verify(try await Fixture.token(.rsa, kid: "old")) == .success(Fixture.alice))
        #expect(await service.verify(try await Fixture.token(.ec, kid: nil)) == .success(Fixture.alice))
        #expect(await service.verify(try await Fixture.token(.ed25519, kid: nil)) == .failure(.wrongAlgorithm), "no Ed25519 key")
    }

    @Test func hs256ConnectionTokensNeedTheOperatorsSecretButCallTokensKeepIt() async throws {
        let ring = try await Self.threeKeys()
        let service = try await Fixture.service(ring)
        let secretToken = try await TokenService(secret: TokenServiceTests.secret).mint(user: Fixture.alice, ttl: 60).token
        #expect(await service.verify(secretToken) == .failure(.wrongAlgorithm))
        let call = try await service.mintCallToken(uid: "alice", sessionId: "standup")
        #expect(await service.verifyCallToken(call.token) == .success(CallGrant(uid: "alice", sessionId: "standup")))
        await #expect(throws: TokenError.self) {
            _ = try await service.verifyCallToken(try await Fixture.token(.rsa, kid: "rsa-1")).get()
        }
        let both = try await Fixture.service(ring, acceptingSecret: true)
        #expect(await both.verify(secretToken) == .success(Fixture.alice))
        #expect(await both.verify(try await Fixture.token(.ed25519, kid: "ed-1")) == .success(Fixture.alice))
    }

    @Test func claimsAreCheckedAsForSecretTokens() async throws {
        let ring = try await Self.threeKeys()
        let service = try await TokenService(
            secret: TokenServiceTests.secret, issuer: "https://auth.example.com", audience: "callgate", publicKeys: ring,
            secretVerifiesConnections: false)
        let signer = try await PrivateKeyTokenSigner(pem: try TestKeyPair.of(.ec).privatePEM, kid: "ec-1")
        #expect(await service.verify(try await signer.mint(user: Fixture.alice, ttl: 60).token) == .failure(.wrongIssuer))
        let right = try await signer.mint(user: Fixture.alice, ttl: 60, issuer: "https://auth.example.com", audience: "callgate")
        #expect(await service.verify(right.token) == .success(Fixture.alice))
        let expired = try await signer.mint(user: Fixture.alice, ttl: 60, now: .now.addingTimeInterval(-3600))
        #expect(await service.verify(expired.token) == .failure(.expired))
    }

    @Test func hostileTokensAreMalformedOrBadlySigned() async throws {
        let service = try await Fixture.service(try await Self.threeKeys())
        let valid = try await Fixture.token(.rsa, kid: "rsa-1")
        let parts = valid.split(separator: ".").map(String.init)
        let padded = HandMadeJWT.token(
            header: #"{"alg":"RS256","kid":"rsa-1"}"#,
            payload: #"{"sub":"alice","exp":4102444800,"pad":"\#(String(repeating: "x", count: TokenService.maxTokenBytes))"}"#,
            signature: parts[2])
        #expect(await service.verify(padded) == .failure(.malformed), "over \(TokenService.maxTokenBytes) bytes")
        #expect(await service.verify("\(parts[0]).\(parts[1]).%%%") == .failure(.malformed))
        #expect(await service.verify("\(parts[0]).\(parts[1]).\(parts[2].dropLast(8))") == .failure(.badSignature))
        #expect(await service.verify("\(parts[0]).\(parts[1]).") == .failure(.badSignature))
        let kidNumber = HandMadeJWT.token(header: #"{"alg":"RS256","kid":7}"#, payload: #"{"sub":"alice","exp":4102444800}"#)
        #expect(await service.verify(kidNumber) == .failure(.malformed))
    }

    @Test func aPrivateKeySignerNeedsAPrivateKeyOfAnAcceptedType() async throws {
        for pem in [try TestKeyPair.of(.rsa).publicPEM, try TestKeyPair.of(.p384).privatePEM, try TestKeyPair.of(.rsa1024).privatePEM, "junk"] {
            await #expect(throws: TokenKeyError.self) { _ = try await PrivateKeyTokenSigner(pem: pem, kid: "k") }
        }
        for kind in [TestKeyPair.Kind.rsa, .ec, .ed25519] {
            #expect(try await PrivateKeyTokenSigner(pem: try TestKeyPair.of(kind).privatePEM, kid: nil).algorithm.rawValue == kind.algorithm)
        }
    }

    @Test func theCallTokenSecretOfAClusterIsDerivedFromTheClusterSecret() {
        let secret = TokenService.callTokenSecret(derivedFrom: String(repeating: "c", count: 32))
        #expect(secret.count == 64)
        #expect(secret.allSatisfy { $0.isHexDigit })
        #expect(secret == TokenService.callTokenSecret(derivedFrom: String(repeating: "c", count: 32)), "the same on every node")
        #expect(secret != TokenService.callTokenSecret(derivedFrom: String(repeating: "d", count: 32)))
        #expect(!secret.contains("cccc"))
    }
}
