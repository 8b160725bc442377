import Configuration
import Logging

/// Every option of `callgate serve`, each once: adding one here gives it its flag's help, its
/// environment variable and its config file key; its flag is declared with the same entry
/// (`@Option(.name)`), and `ServeSettingsCoverageTests` fails while the two lists differ.
extension ServeSetting {
    /// In the order `config print`, the docs and deploy/config/callgate.example.yaml use.
    static let all: [ServeSetting] = [
        host, port, jwtSecret, jwtIssuer, jwtAudience, jwtPublicKey, jwtJWKSFile, jwtJWKSURL, jwtJWKSRefresh,
        jwtJWKSCooldown, adminKey, database, databaseSync, deadLetterFile, tlsCert, tlsKey,
        trustedProxy, autoBusy, webApp, logLevel, logFormat,
        allowedOrigin, maxConnections, maxConnectionsPerAddress, maxMessagesPerSecond, maxMessageBytes, maxMessageFragments,
        maxQueuedFrames, maxDevicesPerUser, historySeconds, historyPerUser, historyBytes, maxSessionsPerUser,
        maxCallsPerMinute, maxSessionEvents, maxCallMembers, callerGraceSeconds, participantGraceSeconds,
        maxRecordingsPerSession, maxQueuedWrites, maxHeldOutput, livenessInterval, drainSeconds, shutdownTimeout,
        webhookURL, webhookSecret, webhookTimeout, webhookRetrySchedule, webhookRetryPeriod, webhookConcurrency,
        webhookBreakerFailures, webhookBreakerCooldown, webhookBacklogLimit, webhookAllowPrivateNetworks, webhookCAFile,
        webhookRetention,
        cluster, nodeID, clusterForwardTimeout, clusterSecret, clusterPreviousSecret, clusterPreviousSecretUntil,
        clusterMessageMaxAge,
    ]

    /// A setting by its name.
    static func named(_ name: String) -> ServeSetting? {
        all.first { $0.name == name }
    }

    /// Variables that were renamed when every option got the variable of its own name: still
    /// set, they stop `serve` with the new name rather than being ignored.
    static let renamedVariables = ["CALLGATE_ALLOWED_ORIGINS": allowedOrigin]

    static let host = ServeSetting("host", .text, default: "127.0.0.1", help: "Address to listen on.")
    static let port = ServeSetting(
        "port", .integer(0...65535, unit: nil), default: 8080, help: "TCP port of WebSockets and HTTP; 0 picks a free one.")
    static let jwtSecret = ServeSetting(
        "jwt-secret", .text, .whole, otherwise: "a random one for this run, printed",
        help: "HS256 secret of connection tokens.")
    static let jwtIssuer = ServeSetting(
        "jwt-issuer", .text, otherwise: "not checked", help: "Require this iss claim in connection tokens.")
    static let jwtAudience = ServeSetting(
        "jwt-audience", .text, otherwise: "not checked", help: "Require connection tokens whose aud claim includes this.")
    static let jwtPublicKey = ServeSetting(
        "jwt-public-key", .list, default: .stringArray([]),
        help: "PEM file of a public key that verifies connection tokens: RSA (RS256), EC P-256 (ES256) or Ed25519 (EdDSA); the file's name without extension is its kid (repeatable).")
    static let jwtJWKSFile = ServeSetting(
        "jwt-jwks-file", .text, otherwise: "none",
        help: "JWKS file of public keys that verify connection tokens, picked by kid; read at start.")
    static let jwtJWKSURL = ServeSetting(
        "jwt-jwks-url", .text, otherwise: "none",
        help: "https URL of a JWKS of public keys that verify connection tokens: read at start (the gateway does not start without it), every jwt-jwks-refresh seconds, and for a token with an unknown kid at most once per jwt-jwks-cooldown.")
    static let jwtJWKSRefresh = ServeSetting(
        "jwt-jwks-refresh", .integer(10...86_400, unit: "seconds"), default: 300,
        help: "Seconds between reads of jwt-jwks-url.")
    static let jwtJWKSCooldown = ServeSetting(
        "jwt-jwks-cooldown", .integer(1...3_600, unit: "seconds"), default: 30,
        help: "Least seconds between two reads of jwt-jwks-url that tokens with unknown kids ask for.")
    static let adminKey = ServeSetting(
        "admin-key", .text, .whole, otherwise: "a random one for this run, printed", help: "Bearer key of the admin API.")
    static let database = ServeSetting(
        "database", .text, .urlPassword, default: "./callgate.sqlite",
        help: "SQLite file of call logs and groups, created if missing, or a PostgreSQL server: postgres://user:password@host:port/database[?sslmode=disable|prefer|require|verify-full].")
    static let databaseSync = ServeSetting(
        "database-sync", .choice(DatabaseSync.allCases.map(\.rawValue)), default: "normal",
        help: "SQLite only. normal: a commit survives a crash of the process (SIGKILL, OOM); full: also a power loss, at one fsync per commit.")
    static let deadLetterFile = ServeSetting(
        "dead-letter-file", .text, otherwise: "the database path + .dead-letters.jsonl",
        help: "File (JSON lines) where call log writes the store refuses for good are set aside.")
    static let tlsCert = ServeSetting(
        "tls-cert", .text, otherwise: "none: ws:// and http://",
        help: "PEM certificate (full chain): serve wss:// and https:// (TLS 1.2 and 1.3). Needs tls-key.")
    static let tlsKey = ServeSetting("tls-key", .text, otherwise: "none", help: "PEM private key of tls-cert.")
    static let trustedProxy = ServeSetting(
        "trusted-proxy", .list, default: .stringArray([]),
        help: "CIDR of a reverse proxy whose X-Forwarded-For names the client, e.g. 127.0.0.1/32 (repeatable, IPv4 or IPv6).")
    static let autoBusy = ServeSetting(
        "auto-busy", .toggle, default: true,
        help: "End a call as busy at once when the callee is already in a call; off rings them instead.")
    static let webApp = ServeSetting(
        "web-app", .toggle, default: true, help: "Serve the web softphone demo at /; turn it off in production.")
    static let logLevel = ServeSetting(
        "log-level", .choice(Logger.Level.allCases.map(\.rawValue)), default: "info",
        help: "Lowest level of the log lines written to standard error.")
    static let logFormat = ServeSetting(
        "log-format", .choice(LogFormat.allCases.map(\.rawValue)), default: "text",
        help: "text, or json: one JSON object per line, for log shippers.")

    static let allowedOrigin = ServeSetting(
        "allowed-origin", .list, default: .stringArray([]), otherwise: "any origin",
        help: "A browser origin (scheme://host[:port]) that may open WebSockets and read the call log API; repeatable. Others get 403; requests without Origin are always allowed.")
    static let maxConnections = ServeSetting(
        "max-connections", .integer(1...Int.max, unit: nil), otherwise: "the open-file limit at start less 512",
        help: "TCP connections the process holds, WebSocket or HTTP; the first request of one more gets 503.")
    static let maxConnectionsPerAddress = ServeSetting(
        "max-connections-per-address", .integer(1...Int.max, unit: nil), default: 5000,
        help: "TCP connections per client address, WebSocket or HTTP (through a trusted proxy: WebSockets per forwarded address); the first request of one more gets 429.")
    static let maxMessagesPerSecond = ServeSetting(
        "max-messages-per-second", .integer(0...Int.max, unit: nil), default: 50,
        help: "WebSocket frames per second a socket may send, in bursts of up to a second's worth; faster closes it with 4029. 0: no limit.")
    static let maxMessageBytes = ServeSetting(
        "max-message-bytes", .integer(1...Int.max, unit: nil), default: 65536,
        help: "Largest incoming message; larger closes the socket with 1009.")
    static let maxMessageFragments = ServeSetting(
        "max-message-fragments", .integer(1...Int.max, unit: nil), default: 64,
        help: "Most frames one incoming message may arrive in; more closes the socket with 1009.")
    static let maxQueuedFrames = ServeSetting(
        "max-queued-frames", .integer(1...Int.max, unit: nil), default: 512,
        help: "Outbound messages a socket may have waiting; more closes it with 4008.")
    static let maxDevicesPerUser = ServeSetting(
        "max-devices-per-user", .integer(1...Int.max, unit: nil), default: 10,
        help: "Sockets one user may have connected at once; one more connect gets ERR_TOO_MANY_DEVICES and close 4009.")
    static let historySeconds = ServeSetting(
        "history-seconds", .integer(0...86_400, unit: nil), default: 120,
        help: "How long each user's pushes are kept for a device that reconnects with recover; 0 keeps none.")
    static let historyPerUser = ServeSetting(
        "history-per-user", .integer(1...Int.max, unit: nil), default: 256,
        help: "Most pushes kept per user for recovery, at most half of max-queued-frames; older ones go first.")
    static let historyBytes = ServeSetting(
        "history-bytes", .integer(0...Int.max, unit: nil), default: 67_108_864,
        help: "Most memory the push history may take, frames and bookkeeping; the oldest pushes of all users go first.")
    static let maxSessionsPerUser = ServeSetting(
        "max-sessions-per-user", .integer(1...Int.max, unit: nil), default: 5,
        help: "Standalone (meet) sessions one user may be in at once; one more joinSession gets ERR_TOO_MANY_SESSIONS.")
    static let maxCallsPerMinute = ServeSetting(
        "max-calls-per-minute", .integer(1...Int.max, unit: nil), default: 30,
        help: "Calls and meetings one user may start per minute; more get ERR_RATE_LIMITED.")
    static let maxSessionEvents = ServeSetting(
        "max-session-events", .integer(1...Int.max, unit: nil), default: 50,
        help: "Session events (sendSessionEvent) and holds one user may send per 10 seconds; more get ERR_RATE_LIMITED.")
    static let maxCallMembers = ServeSetting(
        "max-call-members", .integer(2...Int.max, unit: nil), default: 100,
        help: "Users a call may have taking part or ringing that inviteToCall may bring it to; past it ERR_TOO_MANY_PARTICIPANTS.")
    static let callerGraceSeconds = ServeSetting(
        "caller-grace-seconds", .integer(0...3600, unit: nil), default: 10,
        help: "Seconds the caller of a ringing call may be without a connected device before the call is cancelled.")
    static let participantGraceSeconds = ServeSetting(
        "participant-grace-seconds", .integer(0...3600, unit: nil), default: 30,
        help: "Seconds a user in an answered call may be without a connected device before they leave it (reason disconnected).")
    static let maxRecordingsPerSession = ServeSetting(
        "max-recordings-per-session", .integer(1...Int.max, unit: nil), default: 20,
        help: "Recordings one session may have; one more startRecording gets ERR_TOO_MANY_RECORDINGS.")
    static let maxQueuedWrites = ServeSetting(
        "max-queued-writes", .integer(1...Int.max, unit: nil), default: 100_000,
        help: "Call log writes that may wait for the store; past it, ops that write the call log get ERR_STORE_UNAVAILABLE.")
    static let maxHeldOutput = ServeSetting(
        "max-held-output", .integer(1...Int.max, unit: nil), default: 100_000,
        help: "Replies and pushes that may wait for call log writes to be durable; past it, the same refusals.")
    static let livenessInterval = ServeSetting(
        "liveness-interval", .integer(0...Int.max, unit: nil), default: 60,
        help: "Seconds a socket may stay silent (pinged at half) before it is dropped. 0: off.")
    static let drainSeconds = ServeSetting(
        "drain-seconds", .integer(0...3600, unit: nil), default: 30,
        help: "Seconds SIGTERM (or POST /v1/admin/drain) spreads the closing of the sockets over, each with 1012 and a reconnect hint, while readiness says 503. 0: all at once.")
    static let shutdownTimeout = ServeSetting(
        "shutdown-timeout", .integer(1...Int.max, unit: nil), default: 10,
        help: "Seconds the stop after SIGINT or a drain may take to close the sockets left and finish the store writes; then the process exits with status 1.")

    static let webhookURL = ServeSetting(
        "webhook-url", .text, otherwise: "none",
        help: "POST call events to this http(s) URL, signed the Standard Webhooks way (the endpoint 'default'; more through the admin API). Needs webhook-secret.")
    static let webhookSecret = ServeSetting(
        "webhook-secret", .text, .whole, otherwise: "none",
        help: "Signing secret of webhook-url: whsec_ and the base64 of 24 to 64 random bytes.")
    static let webhookTimeout = ServeSetting(
        "webhook-timeout", .decimal(0.1...120), default: 10,
        help: "Seconds one delivery attempt may take before it counts as failed and is retried.")
    static let webhookRetrySchedule = ServeSetting(
        "webhook-retry-schedule", .text, default: "5s,30s,2m,10m,30m,1h,2h,4h",
        help: "Waits between attempts, comma-separated (units s, m, h; 1 s to 24 h each, up to 32), the last repeating, each spread ±20%.")
    static let webhookRetryPeriod = ServeSetting(
        "webhook-retry-period", .integer(0...604_800, unit: "seconds"), default: 86400,
        help: "Seconds after its event a delivery is retried before it is marked failed.")
    static let webhookConcurrency = ServeSetting(
        "webhook-concurrency", .integer(1...256, unit: nil), default: 16, help: "Delivery attempts in flight at once.")
    static let webhookBreakerFailures = ServeSetting(
        "webhook-breaker-failures", .integer(1...100, unit: nil), default: 5,
        help: "Failed attempts in a row (no answer, 5xx, 429) after which an endpoint is left alone for a cooldown.")
    static let webhookBreakerCooldown = ServeSetting(
        "webhook-breaker-cooldown", .integer(1...3600, unit: "seconds"), default: 30,
        help: "Seconds an endpoint whose breaker opened is left alone before one probe; doubles per failed probe up to 300.")
    static let webhookBacklogLimit = ServeSetting(
        "webhook-backlog-limit", .integer(100...1_000_000, unit: nil), default: 10000,
        help: "Most deliveries pending per endpoint; beyond it the oldest are given up.")
    static let webhookAllowPrivateNetworks = ServeSetting(
        "webhook-allow-private-networks", .toggle, default: false,
        help: "Allow endpoints on loopback, private, link-local and other internal addresses (development and tests only).")
    static let webhookCAFile = ServeSetting(
        "webhook-ca-file", .text, otherwise: "the system's CAs only",
        help: "PEM file of CA certificates trusted for https endpoints besides the system's (a private CA).")
    static let webhookRetention = ServeSetting(
        "webhook-retention", .integer(60...7_776_000, unit: "seconds"), default: 259_200,
        help: "Seconds delivered and failed deliveries stay listed in the admin API.")

    static let cluster = ServeSetting(
        "cluster", .text, .urlPassword, otherwise: "none: a single process",
        help: "Run as one node of a cluster sharing this Redis: redis://[[user]:password@]host[:port][/db]. Needs a postgres:// database.")
    static let nodeID = ServeSetting(
        "node-id", .text, otherwise: "hostname:port",
        help: "This node's id, unique in the cluster (1 to 64 of A-Z a-z 0-9 . _ : -).")
    static let clusterForwardTimeout = ServeSetting(
        "cluster-forward-timeout", .integer(50...60000, unit: "milliseconds"), default: 2000,
        help: "Milliseconds an op forwarded to the node that owns its call waits for the answer before the device gets ERR_CALL_OWNER_UNREACHABLE.")
    static let clusterSecret = ServeSetting(
        "cluster-secret", .text, .whole, otherwise: "none (required in cluster mode)",
        help: "The secret that seals every message between the nodes (HMAC-SHA256), the same on every node: at least 32 bytes.")
    static let clusterPreviousSecret = ServeSetting(
        "cluster-previous-secret", .text, .whole, otherwise: "none",
        help: "While rotating the secret: the one being replaced, still accepted and also sealed with until cluster-previous-secret-until.")
    static let clusterPreviousSecretUntil = ServeSetting(
        "cluster-previous-secret-until", .integer(0...Int.max, unit: nil), otherwise: "none",
        help: "When cluster-previous-secret stops being used (Unix seconds, at most 7 days ahead): after the rollout of the new secret.")
    static let clusterMessageMaxAge = ServeSetting(
        "cluster-message-max-age", .integer(1...3600, unit: "seconds"), default: 30,
        help: "Seconds a message between nodes may be old (or ahead, by the receiver's clock) before it is dropped as stale.")
}
