import Foundation

/// Where the public keys that verify connection tokens come from (`--jwt-public-key`,
/// `--jwt-jwks-file`, `--jwt-jwks-url`), and how the JWKS URL is kept fresh. Empty: connection
/// tokens are HS256 with the shared secret only.
public struct TokenKeyConfiguration: Sendable {
    /// PEM files of one public key each; a file's name without its extension is its key's `kid`.
    public var pemFiles: [String] = []
    /// A JWKS file, read once at start.
    public var jwksFile: String?
    /// A JWKS URL: https, or http to a loopback host. Read at start (the gateway does not start
    /// without it), then every `jwksRefreshInterval`, and when a token names a `kid` the gateway
    /// does not hold, at most once per `jwksCooldown`.
    public var jwksURL: String?
    /// How often the JWKS URL is read again.
    public var jwksRefreshInterval: Duration = .seconds(300)
    /// The least time between two reads of the JWKS URL that tokens with unknown `kid`s ask for,
    /// so that such tokens cannot make the gateway hammer the URL.
    public var jwksCooldown: Duration = .seconds(30)
    /// How long one read of the JWKS URL may take, connect to the last byte.
    public var jwksTimeout: Duration = .seconds(5)

    /// Makes an empty configuration: no public keys.
    public init() {}

    /// Whether no public key source is configured.
    public var isEmpty: Bool {
        pemFiles.isEmpty && jwksFile == nil && jwksURL == nil
    }

    /// The bounds of `jwksRefreshInterval`, in seconds.
    public static let refreshIntervals = 10...86_400
    /// The bounds of `jwksCooldown`, in seconds.
    public static let cooldowns = 1...3600

    /// What is wrong with these settings, with the flag it concerns; nil when nothing is.
    public func problem() -> String? {
        if let url = jwksURL, let problem = Self.problem(withURL: url) {
            return "--jwt-jwks-url: \(problem)"
        }
        if !Self.refreshIntervals.contains(Int(jwksRefreshInterval.components.seconds)) {
            return "--jwt-jwks-refresh must be \(Self.refreshIntervals.lowerBound) to \(Self.refreshIntervals.upperBound) seconds"
        }
        if jwksCooldown > jwksRefreshInterval || jwksCooldown < .seconds(Self.cooldowns.lowerBound)
            || jwksCooldown > .seconds(Self.cooldowns.upperBound)
        {
            return "--jwt-jwks-cooldown must be \(Self.cooldowns.lowerBound) to \(Self.cooldowns.upperBound) seconds, and at most --jwt-jwks-refresh"
        }
        return nil
    }

    /// Why `text` cannot be the JWKS URL: keys read over plain http could be replaced by anyone
    /// on the path, so http is for a loopback host only (a local key server, the tests).
    static func problem(withURL text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "'\(text)' is not a URL"
        }
        guard url.user == nil, url.password == nil else { return "credentials do not belong in the URL" }
        switch scheme {
        case "https":
            return nil
        case "http":
            let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
            return loopback ? nil : "must be https:// (http:// only to a loopback host)"
        default:
            return "must be https://"
        }
    }
}
