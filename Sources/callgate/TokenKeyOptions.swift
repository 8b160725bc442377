import ArgumentParser
import CallGateServer
import Foundation

/// The `serve` options for the public keys that verify connection tokens (RS256, ES256, EdDSA);
/// each also reads a `CALLGATE_JWT_*` variable when the flag is absent.
struct TokenKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("jwt-public-key"),
        help: "PEM file of a public key that verifies connection tokens: RSA (RS256), EC P-256 (ES256) or Ed25519 (EdDSA); the file's name without extension is its kid. Repeat for more keys (or CALLGATE_JWT_PUBLIC_KEY, comma-separated).")
    var publicKeys: [String] = []

    @Option(
        name: .customLong("jwt-jwks-file"),
        help: "JWKS file of public keys that verify connection tokens, picked by kid; read at start (or CALLGATE_JWT_JWKS_FILE).")
    var jwksFile: String?

    @Option(
        name: .customLong("jwt-jwks-url"),
        help: "https URL of a JWKS of public keys that verify connection tokens: read at start (the gateway does not start without it), every --jwt-jwks-refresh seconds, and for a token with an unknown kid at most once per --jwt-jwks-cooldown (or CALLGATE_JWT_JWKS_URL).")
    var jwksURL: String?

    @Option(
        name: .customLong("jwt-jwks-refresh"),
        help: "Seconds between reads of --jwt-jwks-url (default 300; 10 to 86400; or CALLGATE_JWT_JWKS_REFRESH).")
    var jwksRefresh: Int?

    @Option(
        name: .customLong("jwt-jwks-cooldown"),
        help: "Least seconds between two reads of --jwt-jwks-url that tokens with unknown kids ask for (default 30; 1 to 3600; or CALLGATE_JWT_JWKS_COOLDOWN).")
    var jwksCooldown: Int?

    /// Writes the key sources into `configuration`, and what follows from them and from
    /// `givenSecret` (`--jwt-secret` or its variable): with public keys and no secret, the secret
    /// only signs call tokens and no development tokens are minted; in cluster mode without
    /// `--jwt-secret`, that secret is derived from `clusterSecret`, the same on every node.
    /// Throws on a value out of range, and for a cluster that would have nothing to verify
    /// connection tokens with.
    func apply(to configuration: inout ServerConfiguration, givenSecret: String?, clusterSecret: String?) throws {
        var keys = TokenKeyConfiguration()
        keys.pemFiles = publicKeys.isEmpty ? ServeCommand.list(EnvironmentDefault.string("CALLGATE_JWT_PUBLIC_KEY")) : publicKeys
        keys.jwksFile = jwksFile ?? EnvironmentDefault.string("CALLGATE_JWT_JWKS_FILE")
        keys.jwksURL = jwksURL ?? EnvironmentDefault.string("CALLGATE_JWT_JWKS_URL")
        if let seconds = try jwksRefresh ?? Self.number("CALLGATE_JWT_JWKS_REFRESH") {
            keys.jwksRefreshInterval = .seconds(seconds)
        }
        if let seconds = try jwksCooldown ?? Self.number("CALLGATE_JWT_JWKS_COOLDOWN") {
            keys.jwksCooldown = .seconds(seconds)
        }
        if let problem = keys.problem() {
            throw ValidationError(problem)
        }
        configuration.jwtPublicKeys = keys
        configuration.secretVerifiesConnections = givenSecret != nil || keys.isEmpty
        configuration.mintsDevTokens = givenSecret == nil && keys.isEmpty
        if configuration.cluster != nil, givenSecret == nil {
            guard !keys.isEmpty, let clusterSecret else {
                throw ValidationError(
                    "cluster mode needs --jwt-secret (the same on every node) or public keys (--jwt-public-key, --jwt-jwks-file, --jwt-jwks-url) to verify connection tokens with")
            }
            configuration.jwtSecret = TokenService.callTokenSecret(derivedFrom: clusterSecret)
        }
    }

    private static func number(_ variable: String) throws -> Int? {
        guard let text = EnvironmentDefault.string(variable) else { return nil }
        guard let value = Int(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
        return value
    }
}
