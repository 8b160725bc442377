import CallGateCore
import CallGateProtocol
import Crypto
import Foundation
import JWTKit

/// Mints and verifies CallGate's tokens: connection tokens, HS256 with the shared secret or
/// RS256, ES256 and EdDSA with the operator's public keys, and call tokens, HS256 with the secret.
///
/// The algorithm is pinned: a token whose header names an algorithm outside that list, or one
/// its key is not bound to, is refused before its signature is looked at (``PublicKeyRing``
/// picks a token's key). jwt-kit's key collection is an actor, so every method is async; call
/// them off the service thread and post the result back through the mailbox. Sendable: one
/// instance serves every thread.
public final class TokenService: Sendable {
    /// The algorithm of the tokens the service mints, and of connection tokens it verifies with
    /// the secret.
    public static let algorithm = "HS256"

    /// Thrown by ``init(secret:issuer:audience:publicKeys:secretVerifiesConnections:)`` for an
    /// empty secret.
    public struct EmptySecretError: Error, Equatable {
        /// The error.
        public init() {}
    }

    /// How far in the future a token's `nbf` or `iat` may be: clocks of the backend that mints
    /// tokens and of the gateway are never quite equal.
    public static let leeway: TimeInterval = 60

    /// Longest token read, in bytes: an RS256 token with a 4096-bit key and every claim at its
    /// longest is under 4 KiB.
    public static let maxTokenBytes = 8192

    /// The secret's key: signs and verifies call tokens, and connection tokens unless
    /// ``secretVerifiesConnections`` is false.
    let keys: JWTKeyCollection
    /// The `iss` a connection token must carry, nil when not checked.
    let issuer: String?
    /// The `aud` a connection token must include, nil when not checked.
    let audience: String?
    /// The public keys connection tokens may be verified with; nil: none.
    let publicKeys: PublicKeyRing?
    /// Whether HS256 connection tokens signed with the secret are accepted (and minted): false
    /// when the operator gave public keys and no secret, and the secret only signs call tokens.
    public let secretVerifiesConnections: Bool

    /// A service that signs and verifies with `secret` (its UTF-8 bytes); connection tokens must
    /// carry `issuer` and `audience` when they are given, and minted ones do. Connection tokens
    /// may also be verified with `publicKeys`; with `secretVerifiesConnections` false, only with
    /// them.
    ///
    /// Secrets shorter than 32 bytes are padded with zero bytes to 32, which leaves every HMAC
    /// unchanged (HMAC pads keys to the hash block size anyway) and satisfies jwt-kit's key-size
    /// check, so tokens stay compatible with any other HS256 implementation given `secret`.
    public init(
        secret: String, issuer: String? = nil, audience: String? = nil, publicKeys: PublicKeyRing? = nil,
        secretVerifiesConnections: Bool = true
    ) async throws(EmptySecretError) {
        guard !secret.isEmpty else { throw EmptySecretError() }
        self.issuer = issuer
        self.audience = audience
        self.publicKeys = publicKeys
        self.secretVerifiesConnections = secretVerifiesConnections
        var key = Array(secret.utf8)
        if key.count < 32 {
            key += [UInt8](repeating: 0, count: 32 - key.count)
        }
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    /// Stops what the public keys run: the reads of the JWKS URL.
    public func stop() {
        publicKeys?.stop()
    }

    /// A fresh secret for a `serve` started without one: 32 random bytes as 64 hex digits.
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let hex = String(UInt8.random(in: .min ... .max, using: &generator), radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// The call token secret of a cluster node started without `--jwt-secret` (its connection
    /// tokens are verified with public keys): HMAC-SHA256 of a fixed label under the cluster
    /// secret, as 64 hex digits. Every node derives the same one, so a call token minted on one
    /// node joins a session another owns, and the cluster secret cannot be recovered from it.
    public static func callTokenSecret(derivedFrom clusterSecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("callgate call tokens v1".utf8), using: SymmetricKey(data: Array(clusterSecret.utf8)))
        return mac.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// A token for `user` that expires `ttl` seconds after `now` (whole seconds).
    ///
    /// Throws ``TokenError`` for a user that ``verify(_:)`` would refuse (bad uid or name) or a
    /// `ttl` below 1, so a minted token is always accepted until it expires.
    public func mint(user: User, ttl: Int, now: Date = .now) async throws -> (token: String, expiresAt: Int64) {
        let claims = try TokenClaims.minted(for: user, ttl: ttl, now: now, issuer: issuer, audience: audience)
        return (try await keys.sign(claims), claims.expiresAt)
    }

    /// The user `token` stands for, or why it is refused.
    public func verify(_ token: String, now: Date = .now) async -> Result<User, TokenError> {
        await verifiedConnection(token, now: now).map(\.user)
    }

    /// The claims of a connection token: algorithm and key, signature, `exp`, `nbf`/`iat` (with
    /// ``leeway``), `iss` and `aud` checked.
    func verifiedConnection(_ token: String, now: Date = .now) async -> Result<TokenClaims, TokenError> {
        let header: TokenHeader
        let verifier: JWTKeyCollection
        switch Self.header(of: token) {
        case .failure(let error): return .failure(error)
        case .success(let parsed): header = parsed
        }
        switch await connectionVerifier(for: header) {
        case .failure(let error): return .failure(error)
        case .success(let found): verifier = found
        }
        return await Self.verified(token, as: TokenClaims.self, with: verifier).flatMap { claims in
            if let problem = claims.problem(issuer: issuer, audience: audience, now: now, leeway: Self.leeway) {
                return .failure(problem)
            }
            return .success(claims)
        }
    }

    /// The keys a connection token with `header` is verified with: the secret's for HS256 (when
    /// it verifies connection tokens), the one public key ``PublicKeyRing`` picks for RS256,
    /// ES256 and EdDSA, nothing for any other algorithm.
    private func connectionVerifier(for header: TokenHeader) async -> Result<JWTKeyCollection, TokenError> {
        switch TokenAlgorithm(rawValue: header.alg) {
        case nil:
            return .failure(.wrongAlgorithm)
        case .hs256?:
            return secretVerifiesConnections ? .success(keys) : .failure(.wrongAlgorithm)
        case let algorithm?:
            guard let publicKeys else { return .failure(.wrongAlgorithm) }
            return await publicKeys.key(kid: header.kid, algorithm: algorithm).map(\.verifier)
        }
    }

    /// The claims of `token`, which must be HS256, once its signature under the secret and its
    /// claims checked out.
    func verifiedWithSecret<Claims: JWTPayload>(_ token: String, as type: Claims.Type) async -> Result<Claims, TokenError> {
        switch Self.header(of: token) {
        case .failure(let error): return .failure(error)
        case .success(let header) where header.alg != Self.algorithm: return .failure(.wrongAlgorithm)
        case .success: return await Self.verified(token, as: Claims.self, with: keys)
        }
    }

    /// The claims of `token` once `verifier`'s key and the claims' own checks accepted it.
    private static func verified<Claims: JWTPayload>(
        _ token: String, as type: Claims.Type, with verifier: JWTKeyCollection
    ) async -> Result<Claims, TokenError> {
        do {
            return .success(try await verifier.verify(token, as: Claims.self))
        } catch let error as TokenError {
            return .failure(error)
        } catch let error as JWTError {
            return .failure(Self.tokenError(for: error))
        } catch {
            return .failure(.malformed)
        }
    }

    /// The header of `token` once what can be checked before jwt-kit parses anything checks
    /// out: at most ``maxTokenBytes``, three parts, a header and a payload that nest no deeper
    /// than `JSONNesting.maxDepth` (jwt-kit's decoder recurses), and a header with a string
    /// `alg` (and `kid`, when present).
    private static func header(of token: String) -> Result<TokenHeader, TokenError> {
        guard token.utf8.count <= maxTokenBytes else { return .failure(.malformed) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let json = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            !JSONNesting.exceeds(JSONNesting.maxDepth, in: json), !JSONNesting.exceeds(JSONNesting.maxDepth, in: payload),
            let header = try? JSONDecoder().decode(TokenHeader.self, from: json)
        else { return .failure(.malformed) }
        return .success(header)
    }

    private static func tokenError(for error: JWTError) -> TokenError {
        switch error.errorType {
        case .signatureVerificationFailed: .badSignature
        case .claimVerificationFailure where error.failedClaim is ExpirationClaim: .expired
        default: .malformed
        }
    }

    /// The header fields the choice of key needs; `alg` may be missing or mistyped, which is
    /// malformed, and so is a `kid` that is not a string.
    private struct TokenHeader: Decodable {
        var alg: String
        var kid: String?
    }
}

/// Call tokens: short-lived passes into one call session, signed like connection tokens.
extension TokenService {
    /// How long a call token lasts unless asked otherwise: 10 minutes.
    public static let callTokenTTL = 600

    /// A call token admitting `uid` to `sessionId`, expiring `ttl` seconds after `now`.
    public func mintCallToken(
        uid: String, sessionId: String, ttl: Int = callTokenTTL, now: Date = .now
    ) async throws -> (token: String, expiresAt: Int64) {
        guard ttl >= 1 else { throw TokenError.invalidLifetime }
        let expiresAt = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(ttl)
        let claims = CallTokenClaims(uid: uid, sessionId: sessionId, expiration: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
        return (try await keys.sign(claims), expiresAt)
    }

    /// Who `token` admits to which session, or why it is refused.
    public func verifyCallToken(_ token: String) async -> Result<CallGrant, TokenError> {
        await verifiedWithSecret(token, as: CallTokenClaims.self).flatMap { claims in
            guard let sessionId = claims.sid else { return .failure(.wrongKind) }
            return .success(CallGrant(uid: claims.sub.value, sessionId: sessionId))
        }
    }
}

/// Why a connection token was refused, or could not be minted.
///
/// The ``message`` is safe to send to a client and to log: it never contains the token.
public enum TokenError: Error, Equatable, Sendable {
    /// Not three base64url parts, undecodable JSON, or `sub`/`exp` missing or of the wrong type.
    case malformed
    /// The header names an algorithm the gateway does not accept (`none`, HS384, PS256, ...), or
    /// not the one its key is bound to (RS256 for an EC key, HS256 when only public keys verify).
    case wrongAlgorithm
    /// The header's `kid` names no key the gateway holds (after a read of the JWKS URL, when
    /// the cooldown allowed one).
    case unknownKey
    /// The header has no `kid`, and several of the gateway's keys are bound to its algorithm.
    case missingKeyID
    /// The signature does not match the gateway's secret or the token's key.
    case badSignature
    /// `exp` is in the past.
    case expired
    /// `nbf` or `iat` is later than now, beyond the leeway.
    case notYetValid
    /// `iss` is not the issuer the gateway was configured with.
    case wrongIssuer
    /// `aud` does not name the audience the gateway was configured with.
    case wrongAudience
    /// `sub` is empty.
    case missingSubject
    /// `sub` is not a valid uid (see ``FieldRules/isValidID(_:)``).
    case invalidSubject
    /// `name` is present but not a valid name (see ``FieldRules/isValidName(_:)``).
    case invalidName
    /// `avatar` is present but not a valid picture URL (see ``FieldRules/isValidPicture(_:)``).
    case invalidAvatar
    /// A token was asked for with a lifetime below one second (minting only).
    case invalidLifetime
    /// A call token used as a connection token, or the other way round.
    case wrongKind

    /// A human-readable reason, without the token.
    public var message: String {
        switch self {
        case .malformed: "token is not a well-formed JWT with a string sub and a numeric exp claim"
        case .wrongAlgorithm: "token algorithm (alg) is not accepted, or is not the one of its key"
        case .unknownKey: "token key id (kid) names no key this gateway holds"
        case .missingKeyID: "token has no key id (kid), and several of this gateway's keys use its algorithm"
        case .badSignature: "token signature does not match"
        case .expired: "token has expired"
        case .notYetValid: "token is not valid yet (nbf or iat is in the future)"
        case .wrongIssuer: "token issuer (iss) is not the one this gateway accepts"
        case .wrongAudience: "token audience (aud) does not include this gateway"
        case .missingSubject: "token subject (sub) is empty"
        case .invalidSubject: "token subject (sub) \(FieldRules.idRuleDescription)"
        case .invalidName: "token name \(FieldRules.nameRuleDescription)"
        case .invalidAvatar: "token avatar \(FieldRules.pictureRuleDescription)"
        case .invalidLifetime: "token lifetime must be at least 1 second"
        case .wrongKind: "this kind of token is not accepted here (connection and call tokens are not interchangeable)"
        }
    }
}

extension TokenError: CustomStringConvertible {
    /// The same as ``message``, so interpolating an error into a log line never leaks a token.
    public var description: String { message }
}

/// The body of a `POST /v1/tokens` response: `{"token", "expiresAt"}` (Unix seconds).
public struct MintedToken: Codable, Equatable, Sendable {
    /// The JWT to send in `connect`.
    public var token: String
    /// When it expires, in Unix seconds.
    public var expiresAt: Int64

    /// A body for `token`, which expires at `expiresAt`.
    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// Decoding of the unpadded base64url text that JWT segments use (RFC 7515, section 2).
///
/// Pure functions; any thread.
enum Base64URL {
    /// The bytes `text` encodes, or nil when it is not base64url.
    static func decode(_ text: Substring) -> Data? {
        var base64 = String(text)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        switch base64.utf8.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }
}

/// Comparison of secrets in time that does not depend on where they differ.
///
/// Pure functions; any thread.
enum ConstantTime {
    /// Whether `given` equals `expected`. Runs over every byte of `expected` whatever `given` is,
    /// so timing reveals at most the length of `expected`.
    static func equals(_ given: some Collection<UInt8>, _ expected: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        var givenIterator = given.makeIterator()
        for byte in expected {
            difference |= byte ^ (givenIterator.next() ?? ~byte)
        }
        return difference == 0
    }
}
