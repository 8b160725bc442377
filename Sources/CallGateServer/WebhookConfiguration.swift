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
    /// Attempts in flight at once, over every endpoint.
    public var concurrency = 16
    /// How long delivered and failed deliveries stay listed in the admin API.
    public var retention: Duration = .seconds(3 * 86_400)
    /// A PEM file of CA certificates trusted for https endpoints besides the system's (a
    /// company's private CA); nil: the system's only.
    public var caFile: String?

    /// Makes the defaults.
    public init() {}

    /// The bounds every value must respect, with the message that says which one it broke;
    /// nil when all hold.
    public func problem() -> String? {
        if let url {
            if let urlProblem = WebhookURL.problem(url) { return "webhook URL: \(urlProblem)" }
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
    /// later run names a URL again). Returns whether any endpoint is enabled.
    func applyDefaultEndpoint(to outbox: any WebhookOutbox, now: Int64) throws -> Bool {
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
        } else if let index, endpoints[index].enabled {
            endpoints[index].enabled = false
            endpoints[index].disabledReason = "started without --webhook-url"
            try outbox.putWebhookEndpoint(endpoints[index])
        }
        return endpoints.contains(where: \.enabled)
    }
}

/// The rules of an endpoint URL: http or https, a host, at most 2,048 bytes, no credentials.
enum WebhookURL {
    /// Why `text` is not an endpoint URL; nil when it is one.
    static func problem(_ text: String) -> String? {
        guard text.utf8.count <= 2048 else { return "longer than 2048 bytes" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https"
        else { return "expected an http:// or https:// URL" }
        guard let host = components.host, !host.isEmpty else { return "the URL has no host" }
        guard components.user == nil, components.password == nil else {
            return "credentials in the URL are not allowed (sign with the secret instead)"
        }
        guard components.fragment == nil else { return "a fragment means nothing to a receiver" }
        return nil
    }

    /// `scheme://host[:port]` of an endpoint URL, as a Content-Security-Policy source; nil when
    /// `text` is not an endpoint URL or its host holds anything a policy source cannot.
    static func origin(_ text: String) -> String? {
        guard problem(text) == nil, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), let host = components.host
        else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard host.allSatisfy(allowed.contains) else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }
}
