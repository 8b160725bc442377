import ArgumentParser
import CallGateServer
import Foundation

/// The `serve` options for the public keys that verify connection tokens (RS256, ES256, EdDSA).
struct TokenKeyOptions: ParsableArguments {
    @Option(.jwtPublicKey) var publicKeys: [String]
    @Option(.jwtJWKSFile) var jwksFile: String?
    @Option(.jwtJWKSURL) var jwksURL: String?
    @Option(.jwtJWKSRefresh) var jwksRefresh: Int?
    @Option(.jwtJWKSCooldown) var jwksCooldown: Int?

    /// Each flag with its setting.
    var given: [(ServeSetting, any GivenFlag)] {
        [
            (.jwtPublicKey, publicKeys), (.jwtJWKSFile, jwksFile), (.jwtJWKSURL, jwksURL),
            (.jwtJWKSRefresh, jwksRefresh), (.jwtJWKSCooldown, jwksCooldown),
        ]
    }

    /// Writes the key sources into `configuration`, and what follows from them and from
    /// `jwt-secret`: with public keys and no secret, the secret only signs call tokens and no
    /// development tokens are minted; in cluster mode without `jwt-secret`, that secret is
    /// derived from `cluster-secret`, the same on every node. Throws for a cluster that would
    /// have nothing to verify connection tokens with.
    static func apply(_ settings: ServeSettings, to configuration: inout ServerConfiguration) throws {
        var keys = TokenKeyConfiguration()
        keys.pemFiles = settings.list(.jwtPublicKey)
        keys.jwksFile = settings.text(.jwtJWKSFile)
        keys.jwksURL = settings.text(.jwtJWKSURL)
        if let seconds = settings.integer(.jwtJWKSRefresh) {
            keys.jwksRefreshInterval = .seconds(seconds)
        }
        if let seconds = settings.integer(.jwtJWKSCooldown) {
            keys.jwksCooldown = .seconds(seconds)
        }
        if let problem = keys.problem() {
            throw ValidationError(problem)
        }
        let givenSecret = settings.text(.jwtSecret)
        configuration.jwtPublicKeys = keys
        configuration.secretVerifiesConnections = givenSecret != nil || keys.isEmpty
        configuration.mintsDevTokens = givenSecret == nil && keys.isEmpty
        if configuration.cluster != nil, givenSecret == nil {
            guard !keys.isEmpty, let clusterSecret = settings.text(.clusterSecret) else {
                throw ValidationError(
                    "cluster mode needs --jwt-secret (or CALLGATE_JWT_SECRET, or jwt-secret in the config file), the same on every node, or public keys (--jwt-public-key, --jwt-jwks-file, --jwt-jwks-url) to verify connection tokens with")
            }
            configuration.jwtSecret = TokenService.callTokenSecret(derivedFrom: clusterSecret)
        }
    }
}
