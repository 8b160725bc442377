import CallGateCore
import Foundation
import NIOSSL

/// How webhooks are delivered, and the endpoint `--webhook-url` configures.
public struct WebhookConfiguration: Sendable {
    /// The URL of the `default` endpoint (every event type); nil: no default endpoint (a
    /// `default` endpoint left from an earlier run is disabled, its deliveries kept).
    public var url: String?
    /// The `default` endpoint's signing secret (`whsec_...`); required with `url`.
    public var secret: String?
    /// How long one attempt may take, connect to last byte of the answer's head.
    public var timeout: Duration = .seconds(10)
    /// The waits between attempts: the first after the first failure, and so on; the last one
    /// repeats. Each wait is spread by ±20% (jitter), so a receiver coming back is not hit by
    /// every pending delivery at once.
    public var retrySchedule: [Duration] = [
        .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(3600), .seconds(7200),
        .seconds(14400),
    ]
    /// How long after its event a delivery is given up (marked failed).
    public var retryPeriod: Duration = .seconds(86_400)
    /// Attempts in flight at once, over every endpoint: each enabled endpoint's budget is an
    /// equal share of it, at least one.
    public var concurrency = 16
    /// Failed attempts in a row (no answer, 5xx, 429) that open an endpoint's circuit breaker.
    public var breakerFailures = 5
    /// How long an open breaker leaves its endpoint alone before one probe; each failed probe
    /// doubles it, up to `maxBreakerCooldown` (or this, when longer).
    public var breakerCooldown: Duration = .seconds(30)
    /// Most deliveries pending per endpoint: beyond it the oldest are given up (reason `backlog`),
    /// checked every few seconds.
    public var backlogLimit = 10_000
    /// Whether endpoints may be inside the network (loopback, private, link-local, ...): for
    /// development and tests only (`--webhook-allow-private-networks`).
    public var allowsPrivateNetworks = false
    /// How long delivered and failed deliveries stay listed in the admin API.
    public var retention: Duration = .seconds(3 * 86_400)
    /// A PEM file of CA certificates trusted for https endpoints besides the system's (a
    /// company's private CA); nil: the system's only.
    public var caFile: String?

    /// Makes the defaults.
    public init() {}

    /// The longest cooldown failed probes double an open breaker's to.
    static let maxBreakerCooldown: Duration = .seconds(300)

    /// How long a dispatcher's claim on a delivery lasts: an attempt's timeout and time to record
    /// it. A node that dies holding claims delays those deliveries by at most this.
    var claimLease: Duration { timeout + .seconds(30) }

    /// Each enabled endpoint's share of `concurrency` when `endpoints` are enabled.
    func share(among endpoints: Int) -> Int {
        max(1, concurrency / max(1, endpoints))
    }

    /// The bounds every value must respect, with the message that says which one it broke;
    /// nil when all hold.
    public func problem() -> String? {
        if let url {
            if let urlProblem = WebhookURL.problem(url, allowsPrivateNetworks: allowsPrivateNetworks) {
                return "webhook URL: \(urlProblem)"
            }
            guard let secret, WebhookSignature.key(of: secret) != nil else {
                return "webhook secret: \(WebhookSignature.rule) (a webhook URL needs one)"
            }
        }
        if url == nil, secret != nil { return "webhook secret given without a webhook URL" }
        guard (Duration.milliseconds(100)...Duration.seconds(120)).contains(timeout) else {
            return "webhook timeout: expected 0.1 to 120 seconds"
        }
        guard !retrySchedule.isEmpty, retrySchedule.count <= 32,
              retrySchedule.allSatisfy({ (Duration.seconds(1)...Duration.seconds(86_400)).contains($0) })
        else { return "webhook retry schedule: expected 1 to 32 waits of 1 s to 24 h" }
        guard (Duration.zero...Duration.seconds(7 * 86_400)).contains(retryPeriod) else {
            return "webhook retry period: expected 0 to 7 days"
        }
        guard (1...256).contains(concurrency) else { return "webhook concurrency: expected 1 to 256" }
        guard (1...100).contains(breakerFailures) else { return "webhook breaker failures: expected 1 to 100" }
        guard (Duration.seconds(1)...Duration.seconds(3600)).contains(breakerCooldown) else {
            return "webhook breaker cooldown: expected 1 to 3600 seconds"
        }
        guard (100...1_000_000).contains(backlogLimit) else { return "webhook backlog limit: expected 100 to 1000000" }
        guard (Duration.seconds(60)...Duration.seconds(90 * 86_400)).contains(retention) else {
            return "webhook retention: expected 1 minute to 90 days"
        }
        if let caFile {
            do {
                guard !(try NIOSSLCertificate.fromPEMFile(caFile)).isEmpty else {
                    return "webhook CA file \(caFile): no PEM certificate in it"
                }
            } catch {
                return "webhook CA file \(caFile): not a readable PEM file of certificates (\(error))"
            }
        }
        return nil
    }
}

extension WebhookConfiguration {
    /// The id of the endpoint `--webhook-url` configures.
    static let defaultEndpointID = "default"

    /// Makes the store's `default` endpoint match `url` and `secret` (created, or updated and
    /// enabled), or disables it when no URL is given (its deliveries are kept, and go on if a
    /// later run names a URL again). A node of a cluster started without a URL leaves it as the
    /// other nodes set it (`shared`). Returns whether any endpoint is enabled.
    func applyDefaultEndpoint(to outbox: any WebhookOutbox, now: Int64, shared: Bool) throws -> WebhookReach {
        var endpoints = try outbox.webhookEndpoints()
        let index = endpoints.firstIndex { $0.id == Self.defaultEndpointID }
        if let url, let secret {
            var endpoint = index.map { endpoints[$0] }
                ?? WebhookEndpoint(id: Self.defaultEndpointID, url: url, secrets: [], createdAt: now)
            endpoint.url = url
            endpoint.secrets = [WebhookSecret(value: secret)]
            endpoint.enabled = true
            endpoint.disabledReason = nil
            try outbox.putWebhookEndpoint(endpoint)
            if let index { endpoints[index] = endpoint } else { endpoints.append(endpoint) }
        } else if !shared, let index, endpoints[index].enabled {
            endpoints[index].enabled = false
            endpoints[index].disabledReason = "started without --webhook-url"
            try outbox.putWebhookEndpoint(endpoints[index])
        }
        return WebhookReach(endpoints)
    }
}

/// The rules of an endpoint URL: http or https, a host, at most 2,048 bytes, no credentials, and
/// unless private networks are allowed no address inside the network written in it
/// (`WebhookAddressRules`; a name is checked at each connection).
enum WebhookURL {
    /// Why `text` is not an endpoint URL; nil when it is one.
    static func problem(_ text: String, allowsPrivateNetworks: Bool) -> String? {
        guard text.utf8.count <= 2048 else { return "longer than 2048 bytes" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https"
        else { return "expected an http:// or https:// URL" }
        guard let host = components.host, !host.isEmpty else { return "the URL has no host" }
        guard components.user == nil, components.password == nil else {
            return "credentials in the URL are not allowed (sign with the secret instead)"
        }
        guard components.fragment == nil else { return "a fragment means nothing to a receiver" }
        if !allowsPrivateNetworks, let inside = WebhookAddressRules.literalProblem(host: host) {
            return inside
        }
        return nil
    }

    /// `scheme://host[:port]` of an endpoint URL, as a Content-Security-Policy source; nil when
    /// `text` is not an endpoint URL or its host holds anything a policy source cannot.
    static func origin(_ text: String) -> String? {
        guard problem(text, allowsPrivateNetworks: true) == nil, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), let host = components.host
        else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard host.allSatisfy(allowed.contains) else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }
}
