import CallGateProtocol
import CallGateServer
import Foundation
import JWTKit
import Testing

@Suite struct TokenServiceTests {
    /// At least 48 bytes, so jwt-kit accepts it unpadded for HS256 and HS384 alike.
    static let secret = "test-secret-0123456789abcdef-0123456789abcdef-0123456789"
    static let alice = User(uid: "alice", name: "Alice A.", avatar: "https://example.com/a.png")

    /// A jwt-kit collection with the same secret but no pin, to forge tokens the service must refuse.
    static func collection(_ digest: DigestAlgorithm = .sha256, secret: String = secret) async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: digest)
    }

    /// Valid claims for alice, one hour ahead.
    static func claims() -> TokenClaims {
        TokenClaims(user: alice, issuedAt: Date(), expiration: Date().addingTimeInterval(3600))
    }

    @Test func mintedTokenVerifiesToTheSameUser() async throws {
        let service = try await TokenService(secret: Self.secret)
        let now = Date(timeIntervalSince1970: 1_900_000_000.75)
        let minted = try await service.mint(user: Self.alice, ttl: 600, now: now)
        #expect(minted.expiresAt == 1_900_000_600)
        #expect(await service.verify(minted.token, now: now) == .success(Self.alice))
    }

    @Test func mintedTokenCarriesTheContractClaims() async throws {
        let service = try await TokenService(secret: Self.secret)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let minted = try await service.mint(user: Self.alice, ttl: 60, now: now)
        let payload = try HandMadeJWT.object(1, of: minted.token)
        #expect(payload["sub"] as? String == "alice")
        #expect(payload["name"] as? String == "Alice A.")
        #expect(payload["avatar"] as? String == "https://example.com/a.png")
        #expect((payload["exp"] as? NSNumber)?.int64Value == 1_900_000_060)
        #expect(try HandMadeJWT.object(0, of: minted.token)["alg"] as? String == "HS256")
    }

    @Test func aTokenNotValidYetIsRefusedBeyondTheLeeway() async throws {
        let service = try await TokenService(secret: Self.secret)
        let keys = await Self.collection()
        var claims = Self.claims()
        claims.nbf = NotBeforeClaim(value: Date().addingTimeInterval(3600))
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.notYetValid))
        claims.nbf = NotBeforeClaim(value: Date().addingTimeInterval(30))
        #expect(await service.verify(try await keys.sign(claims)) == .success(Self.alice))
        claims.nbf = nil
        claims.iat = IssuedAtClaim(value: Date().addingTimeInterval(3600))
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.notYetValid))
    }

    @Test func issuerAndAudienceAreRequiredWhenConfigured() async throws {
        let service = try await TokenService(secret: Self.secret, issuer: "https://api.example.com", audience: "callgate")
        let keys = await Self.collection()
        var claims = Self.claims()
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.wrongIssuer))
        claims.iss = IssuerClaim(value: "https://api.example.com")
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.wrongAudience))
        claims.aud = AudienceClaim(value: ["other", "callgate"])
        #expect(await service.verify(try await keys.sign(claims)) == .success(Self.alice))
        claims.iss = IssuerClaim(value: "https://evil.example.com")
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.wrongIssuer))
        let minted = try await service.mint(user: Self.alice, ttl: 60)
        #expect(await service.verify(minted.token) == .success(Self.alice), "minted tokens carry both")
        let unconfigured = try await TokenService(secret: Self.secret)
        #expect(await unconfigured.verify(minted.token) == .success(Self.alice))
    }

    @Test func tokenPartsNestedTooDeeplyAreMalformed() async throws {
        let service = try await TokenService(secret: Self.secret)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let token = HandMadeJWT.token(
            header: #"{"alg":"HS256","typ":"JWT"}"#, payload: #"{"sub":"alice","exp":4102444800,"x":\#(deep)}"#)
        #expect(await service.verify(token) == .failure(.malformed))
    }

    @Test func expiredTokenIsRefused() async throws {
        let service = try await TokenService(secret: Self.secret)
        let minted = try await service.mint(user: Self.alice, ttl: 60, now: Date().addingTimeInterval(-3600))
        #expect(await service.verify(minted.token) == .failure(.expired))
    }

    @Test func tokenSignedWithAnotherSecretIsRefused() async throws {
        let other = try await TokenService(secret: "another-secret-that-is-long-enough-xx")
        let minted = try await other.mint(user: Self.alice, ttl: 60)
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(minted.token) == .failure(.badSignature))
    }

    @Test func tamperedPayloadIsRefused() async throws {
        let service = try await TokenService(secret: Self.secret)
        let minted = try await service.mint(user: Self.alice, ttl: 60)
        let parts = minted.token.split(separator: ".").map(String.init)
        let forged = HandMadeJWT.encode(Array(#"{"sub":"mallory","exp":4102444800}"#.utf8))
        #expect(await service.verify("\(parts[0]).\(forged).\(parts[2])") == .failure(.badSignature))
    }

    @Test func unsignedAlgNoneTokenIsRefused() async throws {
        let service = try await TokenService(secret: Self.secret)
        let token = HandMadeJWT.token(header: #"{"alg":"none","typ":"JWT"}"#, payload: #"{"sub":"alice","exp":4102444800}"#)
        #expect(await service.verify(token) == .failure(.wrongAlgorithm))
    }

    @Test(arguments: ["none", "HS384", "HS512", "RS256", "hs256"])
    func headerNamingAnotherAlgorithmIsRefusedEvenWithAValidHS256Signature(alg: String) async throws {
        let keys = await Self.collection()
        var header = JWTHeader()
        header.alg = alg
        let forged = try await keys.sign(Self.claims(), header: header)
        // Unpinned jwt-kit accepts this token: only the pin stops it.
        _ = try await keys.verify(forged, as: TokenClaims.self)
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(forged) == .failure(.wrongAlgorithm))
    }

    @Test func hs384TokenWithTheRightSecretIsRefused() async throws {
        let token = try await Self.collection(.sha384).sign(Self.claims())
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(token) == .failure(.wrongAlgorithm))
    }

    @Test(arguments: [
        "", "garbage", "a.b", "a.b.c", "a.b.c.d", "...", "%%%.%%%.%%%",
        HandMadeJWT.token(header: "not json", payload: "{}"),
        HandMadeJWT.token(header: #"{"typ":"JWT"}"#, payload: #"{"sub":"alice","exp":4102444800}"#),
        HandMadeJWT.token(header: #"{"alg":256}"#, payload: #"{"sub":"alice","exp":4102444800}"#),
        HandMadeJWT.token(header: #"["HS256"]"#, payload: "{}"),
        HandMadeJWT.token(header: #"{"alg":"HS256"}"#, payload: "{}", signature: "!!"),
    ])
    func garbageIsMalformed(token: String) async throws {
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(token) == .failure(.malformed))
    }

    @Test func correctlySignedTokenWithGarbagePayloadIsMalformed() async throws {
        struct Junk: JWTPayload {
            var sub: Int
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let token = try await Self.collection().sign(Junk(sub: 7))
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(token) == .failure(.malformed))
    }

    @Test func tokenWithoutExpIsMalformed() async throws {
        struct NoExpiry: JWTPayload {
            var sub: SubjectClaim
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let token = try await Self.collection().sign(NoExpiry(sub: "alice"))
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(token) == .failure(.malformed))
    }

    @Test func missingNameDefaultsToTheUid() async throws {
        var claims = Self.claims()
        claims.name = nil
        claims.avatar = nil
        let token = try await Self.collection().sign(claims)
        let service = try await TokenService(secret: Self.secret)
        #expect(await service.verify(token) == .success(User(uid: "alice", name: "alice")))
    }

    /// Signed with Python's hmac module and the 6-byte secret "s3cret": proves the zero padding
    /// of short secrets keeps tokens compatible with other HS256 implementations.
    @Test func shortSecretMatchesOtherHS256Implementations() async throws {
        let token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6NDEwMjQ0NDgwMH0.qRlbyNdlm8NKK6qruixbCq_HGTQfHHpTaGzC9JqMqVM"
        let service = try await TokenService(secret: "s3cret")
        #expect(await service.verify(token) == .success(User(uid: "alice", name: "alice")))
        let other = try await TokenService(secret: "s3cre")
        #expect(await other.verify(token) == .failure(.badSignature))
    }

    @Test func claimsThatMakeNoValidUserAreRefused() async throws {
        let keys = await Self.collection()
        let service = try await TokenService(secret: Self.secret)
        var claims = Self.claims()
        claims.sub = ""
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.missingSubject))
        claims.sub = "alice smith"
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.invalidSubject))
        claims.sub = SubjectClaim(value: String(repeating: "a", count: 101))
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.invalidSubject))
        claims.sub = "alice"
        claims.name = ""
        #expect(await service.verify(try await keys.sign(claims)) == .failure(.invalidName))
    }

    @Test func errorMessagesNeverContainTheToken() async throws {
        let service = try await TokenService(secret: Self.secret)
        let expired = try await service.mint(user: Self.alice, ttl: 1, now: Date().addingTimeInterval(-60)).token
        let foreign = try await TokenService(secret: "another-secret-that-is-long-enough-xx").mint(user: Self.alice, ttl: 60).token
        var noneHeader = JWTHeader()
        noneHeader.alg = "none"
        let none = try await Self.collection().sign(Self.claims(), header: noneHeader)
        var emptySub = Self.claims()
        emptySub.sub = ""
        let missingSubject = try await Self.collection().sign(emptySub)
        for token in [expired, foreign, none, missingSubject, "secret-looking-garbage-token"] {
            guard case .failure(let error) = await service.verify(token) else {
                Issue.record("token was accepted")
                continue
            }
            for part in token.split(separator: ".") {
                #expect(!error.message.contains(part))
                #expect(!"\(error)".contains(part))
            }
        }
    }

    @Test func mintRefusesWhatVerifyWouldRefuse() async throws {
        let service = try await TokenService(secret: Self.secret)
        await #expect(throws: TokenError.invalidSubject) {
            try await service.mint(user: User(uid: "no spaces", name: "x"), ttl: 60)
        }
        await #expect(throws: TokenError.missingSubject) {
            try await service.mint(user: User(uid: "", name: "x"), ttl: 60)
        }
        await #expect(throws: TokenError.invalidName) {
            try await service.mint(user: User(uid: "bob", name: ""), ttl: 60)
        }
        await #expect(throws: TokenError.invalidLifetime) {
            try await service.mint(user: Self.alice, ttl: 0)
        }
    }

    @Test func emptySecretIsRejected() async {
        await #expect(throws: TokenService.EmptySecretError()) {
            _ = try await TokenService(secret: "")
        }
    }

    @Test func randomSecretIs32RandomBytesInHex() {
        let first = TokenService.randomSecret()
        #expect(first.count == 64)
        #expect(first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first != TokenService.randomSecret())
    }
}
