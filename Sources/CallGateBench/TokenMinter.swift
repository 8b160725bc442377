import Foundation
import JWTKit

/// Mints connection tokens locally (HS256 with the gateway's secret), so the generator needs
/// neither the admin API nor the server's code to authenticate thousands of sockets.
///
/// The secret is used as the gateway uses it: its UTF-8 bytes, padded with zero bytes to 32
/// (which leaves the HMAC unchanged), so the tokens verify with any HS256 implementation.
public struct TokenMinter: Sendable {
    private let keys: JWTKeyCollection

    /// A minter for `secret`; it must not be empty.
    public init(secret: String) async throws(BenchError) {
        guard !secret.isEmpty else { throw BenchError("--jwt-secret must not be empty") }
        var key = Array(secret.utf8)
        if key.count < 32 {
            key += [UInt8](repeating: 0, count: 32 - key.count)
        }
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    /// A token for `uid` (its name is the uid) valid for `ttl` seconds from now.
    public func token(uid: String, ttl: TimeInterval = 86_400) async throws -> String {
        let claims = BenchTokenClaims(
            sub: SubjectClaim(value: uid), name: uid,
            exp: ExpirationClaim(value: Date(timeIntervalSinceNow: ttl).rounded()))
        return try await keys.sign(claims)
    }

    /// Tokens for users `u0` ... `u(count-1)`, in index order.
    public func tokens(count: Int, ttl: TimeInterval = 86_400) async throws -> [String] {
        var tokens: [String] = []
        tokens.reserveCapacity(count)
        for index in 0..<count {
            tokens.append(try await token(uid: BenchConfiguration.uid(index), ttl: ttl))
        }
        return tokens
    }
}

extension Date {
    /// Whole seconds, as JWT `exp` claims carry them.
    fileprivate func rounded() -> Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down))
    }
}

/// The claims of a connection token as the gateway reads them: `sub` (uid), `name`, `exp`.
struct BenchTokenClaims: JWTPayload {
    var sub: SubjectClaim
    var name: String
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
