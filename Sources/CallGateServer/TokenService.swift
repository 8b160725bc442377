import CallGateProtocol
import Foundation
import JWTKit

/// Mints and verifies CallGate's tokens (connection and call tokens): HS256 JWTs signed with one shared secret.
///
/// The algorithm is pinned: a token whose header names anything but HS256 is refused before its
/// signature is looked at, whatever the secret. jwt-kit's key collection is an actor, so every
/// method is async; call them off the service thread and post the result back through the
/// mailbox. Sendable: one instance serves every thread.
public final class TokenService: Sendable {
    /// The only algorithm a token may name.
    public static let algorithm = "HS256"

    /// Thrown by ``init(secret:)`` for an empty secret.
    public struct EmptySecretError: Error, Equatable {
        /// The error.
        public init() {}
    }

    /// How far in the future a token's `nbf` or `iat` may be: clocks of the backend that mints
    /// tokens and of the gateway are never quite equal.
    public static let leeway: TimeInterval = 60

    let keys: JWTKeyCollection
    /// The `iss` a connection token must carry, nil when not checked.
    let issuer: String?
    /// The `aud` a connection token must include, nil when not checked.
    let audience: String?

    /// A service that signs and verifies with `secret` (its UTF-8 bytes); connection tokens must
    /// carry `issuer` and `audience` when they are given, and minted ones do.
    ///
    /// Secrets shorter than 32 bytes are padded with zero bytes to 32, which leaves every HMAC
    /// unchanged (HMAC pads keys to the hash block size anyway) and satisfies jwt-kit's key-size
    /// check, so tokens stay compatible with any other HS256 implementation given `secret`.
    public init(secret: String, issuer: String? = nil, audience: String? = nil) async throws(EmptySecretError) {
        guard !secret.isEmpty else { throw EmptySecretError() }
        self.issuer = issuer
        self.audience = audience
        var key = Array(secret.utf8)
        if key.count < 32 {
            key += [UInt8](repeating: 0, count: 32 - key.count)
        }
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    /// A fresh secret for a `serve` started without one: 32 random bytes as 64 hex digits.
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let hex = String(UInt8.random(in: .min ... .max, using: &generator), radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// A token for `user` that expires `ttl` seconds after `now` (whole seconds).
    ///
    /// Throws ``TokenError`` for a user that ``verify(_:)`` would refuse (bad uid or name) or a
    /// `ttl` below 1, so a minted token is always accepted until it expires.
    public func mint(user: User, ttl: Int, now: Date = .now) async throws -> (token: String, expiresAt: Int64) {
        if let problem = TokenClaims.problem(with: user) { throw problem }
        guard ttl >= 1 else { throw TokenError.invalidLifetime }
        let expiresAt = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(ttl)
        let claims = TokenClaims(
            user: user, issuedAt: Date(timeIntervalSince1970: TimeInterval(expiresAt - Int64(ttl))),
            expiration: Date(timeIntervalSince1970: TimeInterval(expiresAt)), issuer: issuer, audience: audience)
        let token = try await keys.sign(claims)
        return (token, expiresAt)
    }

    /// The user `token` stands for, or why it is refused.
    public func verify(_ token: String, now: Date = .now) async -> Result<User, TokenError> {
        await verifiedConnection(token, now: now).map(\.user)
    }

    /// The claims of a connection token: signature, `exp`, `nbf`/`iat` (with ``leeway``),
    /// `iss` and `aud` checked.
    func verifiedConnection(_ token: String, now: Date = .now) async -> Result<TokenClaims, TokenError> {
        await verified(token, as: TokenClaims.self).flatMap { claims in
            if let problem = claims.problem(issuer: issuer, audience: audience, now: now, leeway: Self.leeway) {
                return .failure(problem)
            }
            return .success(claims)
        }
    }

    /// The claims of `token` once its header, signature and claims checked out.
    func verified<Claims: JWTPayload>(_ token: String, as type: Claims.Type) async -> Result<Claims, TokenError> {
        if let problem = Self.shapeProblem(token) { return .failure(problem) }
        do {
            return .success(try await keys.verify(token, as: Claims.self))
        } catch let error as TokenError {
            return .failure(error)
        } catch let error as JWTError {
            return .failure(Self.tokenError(for: error))
        } catch {
            return .failure(.malformed)
        }
    }

    /// Checks what can be checked before jwt-kit parses anything: three parts, a header and a
    /// payload that nest no deeper than `JSONNesting.maxDepth` (jwt-kit's decoder recurses), and
    /// a header whose `alg` is exactly HS256.
    private static func shapeProblem(_ token: String) -> TokenError? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let json = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            !JSONNesting.exceeds(JSONNesting.maxDepth, in: json), !JSONNesting.exceeds(JSONNesting.maxDepth, in: payload),
            let header = try? JSONDecoder().decode(AlgorithmHeader.self, from: json)
        else { return .malformed }
        return header.alg == algorithm ? nil : .wrongAlgorithm
    }

    private static func tokenError(for error: JWTError) -> TokenError {
        switch error.errorType {
        case .signatureVerificationFailed: .badSignature
        case .claimVerificationFailure where error.failedClaim is ExpirationClaim: .expired
        default: .malformed
        }
    }

    /// The one header field the pin needs; `alg` may be missing or mistyped, which is malformed.
    private struct AlgorithmHeader: Decodable {
        var alg: String
    }
}
