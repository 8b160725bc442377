import ArgumentParser
import CallGateServer
import Foundation

/// The `serve` options for webhooks; each also reads a `CALLGATE_WEBHOOK_*` variable when the
/// flag is absent.
struct WebhookOptions: ParsableArguments {
    @Option(
        name: .customLong("webhook-url"),
        help: "POST call events to this http(s) URL, signed the Standard Webhooks way (the endpoint 'default'; more through the admin API). Needs --webhook-secret.")
    var url: String?

    @Option(
        name: .customLong("webhook-secret"),
        help: "Signing secret of --webhook-url: whsec_ and the base64 of 24 to 64 random bytes.")
    var secret: String?

    @Option(
        name: .customLong("webhook-timeout"),
        help: "Seconds one delivery attempt may take before it counts as failed and is retried (default 10; 0.1 to 120).")
    var timeout: Double?

    @Option(
        name: .customLong("webhook-retry-schedule"),
        help: "Waits between attempts, comma-separated, the last repeating, each spread ±20% (default 5s,30s,2m,10m,30m,1h,2h,4h; units s, m, h).")
    var retrySchedule: String?

    @Option(
        name: .customLong("webhook-retry-period"),
        help: "Seconds after its event a delivery is retried before it is marked failed (default 86400; at most 7 days).")
    var retryPeriod: Int?

    @Option(
        name: .customLong("webhook-concurrency"),
        help: "Delivery attempts in flight at once (default 16; 1 to 256).")
    var concurrency: Int?

    @Option(
        name: .customLong("webhook-breaker-failures"),
        help: "Failed attempts in a row (no answer, 5xx, 429) after which an endpoint is left alone for a cooldown (default 5; 1 to 100).")
    var breakerFailures: Int?

    @Option(
        name: .customLong("webhook-breaker-cooldown"),
        help: "Seconds an endpoint whose breaker opened is left alone before one probe; doubles per failed probe up to 300 (default 30; 1 to 3600).")
    var breakerCooldown: Int?

    @Option(
        name: .customLong("webhook-backlog-limit"),
        help: "Most deliveries pending per endpoint; beyond it the oldest are given up (default 10000; 100 to 1000000).")
    var backlogLimit: Int?

    @Flag(
        name: .customLong("webhook-allow-private-networks"),
        help: "Allow endpoints on loopback, private, link-local and other internal addresses (development and tests only).")
    var allowPrivateNetworks = false

    @Option(
        name: .customLong("webhook-ca-file"),
        help: "PEM file of CA certificates trusted for https endpoints besides the system's (a private CA).")
    var caFile: String?

    @Option(
        name: .customLong("webhook-retention"),
        help: "Seconds delivered and failed deliveries stay listed in the admin API (default 259200, 3 days).")
    var retention: Int?

    /// Writes the given or environment values into `configuration`; throws on a value out of range.
    func apply(to configuration: inout ServerConfiguration) throws {
        var webhooks = configuration.webhooks
        webhooks.url = url ?? EnvironmentDefault.string("CALLGATE_WEBHOOK_URL")
        webhooks.secret = secret ?? EnvironmentDefault.string("CALLGATE_WEBHOOK_SECRET")
        if let seconds = try timeout ?? Self.number("CALLGATE_WEBHOOK_TIMEOUT", Double.init) {
            guard seconds.isFinite, (0.1...120).contains(seconds) else {
                throw ValidationError("--webhook-timeout must be 0.1 to 120 seconds, got \(seconds)")
            }
            webhooks.timeout = .milliseconds(Int64(seconds * 1000))
        }
        if let text = retrySchedule ?? EnvironmentDefault.string("CALLGATE_WEBHOOK_RETRY_SCHEDULE") {
            webhooks.retrySchedule = try Self.schedule(text)
        }
        if let seconds = try retryPeriod ?? Self.number("CALLGATE_WEBHOOK_RETRY_PERIOD", Int.init) {
            webhooks.retryPeriod = .seconds(seconds)
        }
        if let count = try concurrency ?? Self.number("CALLGATE_WEBHOOK_CONCURRENCY", Int.init) {
            webhooks.concurrency = count
        }
        if let seconds = try retention ?? Self.number("CALLGATE_WEBHOOK_RETENTION", Int.init) {
            webhooks.retention = .seconds(seconds)
        }
        if let count = try breakerFailures ?? Self.number("CALLGATE_WEBHOOK_BREAKER_FAILURES", Int.init) {
            webhooks.breakerFailures = count
        }
        if let seconds = try breakerCooldown ?? Self.number("CALLGATE_WEBHOOK_BREAKER_COOLDOWN", Int.init) {
            guard (1...3600).contains(seconds) else {
                throw ValidationError("--webhook-breaker-cooldown must be 1 to 3600 seconds, got \(seconds)")
            }
            webhooks.breakerCooldown = .seconds(seconds)
        }
        if let count = try backlogLimit ?? Self.number("CALLGATE_WEBHOOK_BACKLOG_LIMIT", Int.init) {
            webhooks.backlogLimit = count
        }
        webhooks.allowsPrivateNetworks = allowPrivateNetworks
            || EnvironmentDefault.string("CALLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS").map { ["1", "true", "yes"].contains($0.lowercased()) } ?? false
        webhooks.caFile = caFile ?? EnvironmentDefault.string("CALLGATE_WEBHOOK_CA_FILE")
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
                throw ValidationError("--webhook-retry-schedule: '\(item)' is not a wait like 5s, 2m or 1h")
            }
            return .seconds(value * scale)
        }
    }

    private static func number<Value>(_ variable: String, _ parse: (String) -> Value?) throws -> Value? {
        guard let text = EnvironmentDefault.string(variable) else { return nil }
        guard let value = parse(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
        return value
    }
}
