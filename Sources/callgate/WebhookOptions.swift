import ArgumentParser
import CallGateServer
import Foundation

/// The `serve` options for webhooks.
struct WebhookOptions: ParsableArguments {
    @Option(.webhookURL) var url: String?
    @Option(.webhookSecret) var secret: String?
    @Option(.webhookTimeout) var timeout: Double?
    @Option(.webhookRetrySchedule) var retrySchedule: String?
    @Option(.webhookRetryPeriod) var retryPeriod: Int?
    @Option(.webhookConcurrency) var concurrency: Int?
    @Option(.webhookBreakerFailures) var breakerFailures: Int?
    @Option(.webhookBreakerCooldown) var breakerCooldown: Int?
    @Option(.webhookBacklogLimit) var backlogLimit: Int?
    @Flag(.webhookAllowPrivateNetworks) var allowPrivateNetworks: Bool?
    @Option(.webhookCAFile) var caFile: String?
    @Option(.webhookRetention) var retention: Int?

    /// Each flag with its setting.
    var given: [(ServeSetting, any GivenFlag)] {
        [
            (.webhookURL, url), (.webhookSecret, secret), (.webhookTimeout, timeout),
            (.webhookRetrySchedule, retrySchedule), (.webhookRetryPeriod, retryPeriod),
            (.webhookConcurrency, concurrency), (.webhookBreakerFailures, breakerFailures),
            (.webhookBreakerCooldown, breakerCooldown), (.webhookBacklogLimit, backlogLimit),
            (.webhookAllowPrivateNetworks, allowPrivateNetworks), (.webhookCAFile, caFile), (.webhookRetention, retention),
        ]
    }

    /// Writes the webhook settings into `configuration`; throws when they are unusable together
    /// (a URL without a secret, a CA file that is no PEM).
    static func apply(_ settings: ServeSettings, to configuration: inout ServerConfiguration) throws {
        var webhooks = configuration.webhooks
        webhooks.url = settings.text(.webhookURL)
        webhooks.secret = settings.text(.webhookSecret)
        if let seconds = settings.decimal(.webhookTimeout) { webhooks.timeout = .milliseconds(Int64(seconds * 1000)) }
        if let text = settings.text(.webhookRetrySchedule) { webhooks.retrySchedule = try schedule(text) }
        if let seconds = settings.integer(.webhookRetryPeriod) { webhooks.retryPeriod = .seconds(seconds) }
        if let count = settings.integer(.webhookConcurrency) { webhooks.concurrency = count }
        if let seconds = settings.integer(.webhookRetention) { webhooks.retention = .seconds(seconds) }
        if let count = settings.integer(.webhookBreakerFailures) { webhooks.breakerFailures = count }
        if let seconds = settings.integer(.webhookBreakerCooldown) { webhooks.breakerCooldown = .seconds(seconds) }
        if let count = settings.integer(.webhookBacklogLimit) { webhooks.backlogLimit = count }
        webhooks.allowsPrivateNetworks = settings.toggle(.webhookAllowPrivateNetworks) ?? false
        webhooks.caFile = settings.text(.webhookCAFile)
        if let problem = webhooks.problem() {
            throw ValidationError(problem)
        }
        configuration.webhooks = webhooks
    }

    /// `5s,30s,2m,1h` as durations.
    static func schedule(_ text: String) throws -> [Duration] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return try items.map { item in
            let units: [(String, Int64)] = [("s", 1), ("m", 60), ("h", 3600)]
            guard let (suffix, scale) = units.first(where: { item.hasSuffix($0.0) }),
                  let value = Int64(item.dropLast(suffix.count)), (0...1_000_000).contains(value)
            else {
                throw ValidationError("webhook-retry-schedule: '\(item)' is not a wait like 5s, 2m or 1h")
            }
            return .seconds(value * scale)
        }
    }
}
