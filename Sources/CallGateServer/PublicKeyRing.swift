import Foundation
import Logging

/// The public keys connection tokens may be verified with, and which one a token gets.
///
/// A token's `kid` picks its key, and the token's `alg` must be the one that key is bound to; a
/// token without `kid` is verified only when exactly one key is bound to its `alg` (with two or
/// more, say during a rotation, it is refused rather than tried against each: one verification
/// per token, whatever it names). A `kid` no key has makes the JWKS URL, when there is one, be
/// read again (at most once per cooldown) before the token is refused.
///
/// Keys from files (`--jwt-public-key`, `--jwt-jwks-file`) are read once at start; the URL's are
/// kept fresh by ``RemoteKeySet``. Sendable; any thread.
public final class PublicKeyRing: Sendable {
    /// The keys from PEM files and the JWKS file, by kid.
    private let fixed: [String: TokenKey]
    /// The keys of the JWKS URL, nil without one.
    private let remote: RemoteKeySet?

    /// Largest PEM file read.
    static let maxPEMBytes = 64 * 1024

    private init(fixed: [String: TokenKey], remote: RemoteKeySet?) {
        self.fixed = fixed
        self.remote = remote
    }

    /// The keys `configuration` names, nil when it names none. Reads every file and the URL
    /// once; throws, naming the file or URL, when one cannot be read or holds no usable key, or
    /// when two keys share a kid. Logs each JWKS key it skipped.
    public static func load(_ configuration: TokenKeyConfiguration, logger: Logger) async throws(TokenKeyError) -> PublicKeyRing? {
        guard !configuration.isEmpty else { return nil }
        if let problem = configuration.problem() { throw TokenKeyError(problem) }
        var fixed: [String: TokenKey] = [:]
        func add(_ key: TokenKey) throws(TokenKeyError) {
            if let other = fixed[key.kid] {
                throw TokenKeyError("\(key.origin): the kid \(key.kid) is also the kid of a key from \(other.origin)")
            }
            fixed[key.kid] = key
        }
        for path in configuration.pemFiles {
            let origin = "--jwt-public-key \(path)"
            let kid = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            if let problem = TokenKey.problem(withKID: kid) {
                throw TokenKeyError("\(origin): its name without extension is the key's kid, and that is \(problem)")
            }
            let text = String(decoding: try read(path, limit: maxPEMBytes, origin: origin), as: UTF8.self)
            try add(try await PEMPublicKey.key(fromPEM: text, kid: kid, origin: origin))
        }
        if let path = configuration.jwksFile {
            let origin = "--jwt-jwks-file \(path)"
            let found = try await JWKSDocument.keys(from: try read(path, limit: JWKSDocument.maxBytes, origin: origin), origin: origin)
            for key in found.keys {
                try add(key)
            }
            for skipped in found.skipped {
                logger.warning("JWKS key skipped", metadata: ["file": "\(path)", "key": "\(skipped)"])
            }
        }
        var remote: RemoteKeySet?
        if let url = configuration.jwksURL {
            remote = try await RemoteKeySet.start(configuration, url: url, reservedKIDs: Set(fixed.keys), logger: logger)
        }
        let ring = PublicKeyRing(fixed: fixed, remote: remote)
        logger.info(
            "token keys", metadata: ["kids": "\(ring.all.map { "\($0.kid) (\($0.algorithm.rawValue))" }.sorted().joined(separator: ", "))"])
        return ring
    }

    /// Every key there is now.
    public var all: [TokenKey] {
        Array(fixed.values) + (remote?.all ?? [])
    }

    /// The key a token naming `kid` (or none) and `algorithm` is verified with, or why it gets
    /// none: `unknownKey` (no key has that kid), `missingKeyID` (no kid, and several keys are
    /// bound to the algorithm), `wrongAlgorithm` (the kid's key is bound to another algorithm,
    /// or no key is bound to this one).
    func key(kid: String?, algorithm: TokenAlgorithm) async -> Result<TokenKey, TokenError> {
        guard let kid else {
            let candidates = all.filter { $0.algorithm == algorithm }
            guard candidates.count == 1, let key = candidates.first else {
                return .failure(candidates.isEmpty ? .wrongAlgorithm : .missingKeyID)
            }
            return .success(key)
        }
        var found = fixed[kid] ?? remote?[kid]
        if found == nil, let remote, await remote.readForUnknownKey() {
            found = remote[kid]
        }
        guard let found else { return .failure(.unknownKey) }
        return found.algorithm == algorithm ? .success(found) : .failure(.wrongAlgorithm)
    }

    /// Stops reading the JWKS URL.
    public func stop() {
        remote?.stop()
    }

    /// The bytes of the file at `path`, at most `limit` of them; throws naming `origin` for a
    /// file that cannot be read or is larger.
    private static func read(_ path: String, limit: Int, origin: String) throws(TokenKeyError) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TokenKeyError("\(origin): cannot read the file")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw TokenKeyError("\(origin): the file is over \(limit) bytes; at most that many are read")
            }
            return data
        } catch let error as TokenKeyError {
            throw error
        } catch {
            throw TokenKeyError("\(origin): cannot read the file (\(error))")
        }
    }
}
