import ArgumentParser
import CallGateCore
import CallGateServer
import Foundation

/// The `serve` options for limits, liveness and shutdown; each also reads a `CALLGATE_*`
/// variable when the flag is absent.
struct LimitOptions: ParsableArguments {
    @Option(
        name: .customLong("allowed-origin"),
        help: "A browser origin (scheme://host[:port]) that may open WebSockets; repeatable. Others get 403; requests without Origin are always allowed (default: any origin; CALLGATE_ALLOWED_ORIGINS, comma-separated).")
    var allowedOrigins: [String] = []

    @Option(
        name: .customLong("max-connections"),
        help: "TCP connections the process holds, WebSocket or HTTP; the first request of one more gets 503 (default: the open-file limit less 512).")
    var maxConnections: Int?

    @Option(
        name: .customLong("max-connections-per-address"),
        help: "TCP connections per client address, WebSocket or HTTP (through a --trusted-proxy: WebSockets per forwarded address); the first request of one more gets 429 (default 5000).")
    var maxConnectionsPerAddress: Int?

    @Option(
        name: .customLong("max-messages-per-second"),
        help: "WebSocket frames per second a socket may send (fragments and empty frames count), in bursts of up to a second's worth; faster closes it with 4029 (default 50; 0: no limit).")
    var maxMessagesPerSecond: Int?

    @Option(
        name: .customLong("max-message-bytes"),
        help: "Largest incoming message; larger closes the socket with 1009 (default 65536).")
    var maxMessageBytes: Int?

    @Option(
        name: .customLong("max-message-fragments"),
        help: "Most frames one incoming message may arrive in; more closes the socket with 1009 (default 64).")
    var maxMessageFragments: Int?

    @Option(
        name: .customLong("max-queued-frames"),
        help: "Outbound messages a socket may have waiting; more closes it with 4008 (default 512).")
    var maxQueuedFrames: Int?

    @Option(
        name: .customLong("history-seconds"),
        help: "How long each user's pushes are kept for a device that reconnects with recover; 0 keeps none (default 120).")
    var historySeconds: Int?

    @Option(
        name: .customLong("history-per-user"),
        help: "Most pushes kept per user for recovery; older ones go first (default 256).")
    var historyPerUser: Int?

    @Option(
        name: .customLong("history-bytes"),
        help: "Most memory the push history may take, frames and bookkeeping; the oldest pushes of all users go first (default 67108864).")
    var historyBytes: Int?

    @Option(
        name: .customLong("max-devices-per-user"),
        help: "Sockets one user may have connected at once; one more connect gets ERR_TOO_MANY_DEVICES and close 4009 (default 10).")
    var maxDevicesPerUser: Int?

    @Option(
        name: .customLong("max-sessions-per-user"),
        help: "Standalone (meet) sessions one user may be in at once; one more joinSession gets ERR_TOO_MANY_SESSIONS (default 5).")
    var maxSessionsPerUser: Int?

    @Option(
        name: .customLong("max-calls-per-minute"),
        help: "Calls one user may start per minute; more initiateCalls get ERR_RATE_LIMITED (default 30).")
    var maxCallsPerMinute: Int?

    @Option(
        name: .customLong("max-session-events"),
        help: "Session events (sendSessionEvent) and holds one user may send per 10 seconds; more get ERR_RATE_LIMITED (default 50).")
    var maxSessionEvents: Int?

    @Option(
        name: .customLong("max-call-members"),
        help: "Users a call may have taking part or ringing that inviteToCall may bring it to; past it ERR_TOO_MANY_PARTICIPANTS (default 100).")
    var maxCallMembers: Int?

    @Option(
        name: .customLong("caller-grace-seconds"),
        help: "Seconds the caller of a ringing call may be without a connected device before the call is cancelled (default 10; 0 to 3600).")
    var callerGraceSeconds: Int?

    @Option(
        name: .customLong("participant-grace-seconds"),
        help: "Seconds a user in an answered call may be without a connected device before they leave it with reason disconnected (default 30; 0 to 3600).")
    var participantGraceSeconds: Int?

    @Option(
        name: .customLong("max-recordings-per-session"),
        help: "Recordings one session may have; one more startRecording gets ERR_TOO_MANY_RECORDINGS (default 20).")
    var maxRecordingsPerSession: Int?

    @Option(
        name: .customLong("max-queued-writes"),
        help: "Call log writes that may wait for the store; past it, ops that write the call log get ERR_STORE_UNAVAILABLE (default 100000).")
    var maxQueuedWrites: Int?

    @Option(
        name: .customLong("max-held-output"),
        help: "Replies and pushes that may wait for call log writes to be durable; past it, ops that write the call log get ERR_STORE_UNAVAILABLE (default 100000).")
    var maxHeldOutput: Int?

    @Option(
        name: .customLong("liveness-interval"),
        help: "Seconds a socket may stay silent (no message, no pong; pinged at half) before it is dropped (default 60; 0: off).")
    var livenessInterval: Int?

    @Option(
        name: .customLong("drain-seconds"),
        help: "Seconds SIGTERM (or POST /v1/admin/drain) spreads the closing of the sockets over, each closed with 1012 and a reconnect hint, while readiness says 503 (default 30; 0: all at once; at most 3600).")
    var drainSeconds: Int?

    @Option(
        name: .customLong("shutdown-timeout"),
        help: "Seconds the stop after SIGINT or a drain may take to close the sockets left and finish the store writes; then the process exits with status 1 (default 10).")
    var shutdownTimeout: Int?

    /// Writes the given or environment values into `configuration`; throws on a value out of range.
    func apply(to configuration: inout ServerConfiguration) throws {
        let origins = allowedOrigins.isEmpty ? Self.list("CALLGATE_ALLOWED_ORIGINS") : allowedOrigins
        for origin in origins where !origin.contains("://") {
            throw ValidationError("an allowed origin is scheme://host[:port], got '\(origin)'")
        }
        configuration.allowedOrigins = origins
        if let value = try Self.value(maxConnections, "CALLGATE_MAX_CONNECTIONS", "--max-connections", min: 1) {
            configuration.maxConnections = value
        }
        if let value = try Self.value(
            maxConnectionsPerAddress, "CALLGATE_MAX_CONNECTIONS_PER_ADDRESS", "--max-connections-per-address", min: 1)
        {
            configuration.maxConnectionsPerAddress = value
        }
        if let value = try Self.value(
            maxMessagesPerSecond, "CALLGATE_MAX_MESSAGES_PER_SECOND", "--max-messages-per-second", min: 0)
        {
            configuration.maxMessagesPerSecond = value
        }
        if let value = try Self.value(maxMessageBytes, "CALLGATE_MAX_MESSAGE_BYTES", "--max-message-bytes", min: 1) {
            configuration.maxMessageBytes = value
        }
        if let value = try Self.value(
            maxMessageFragments, "CALLGATE_MAX_MESSAGE_FRAGMENTS", "--max-message-fragments", min: 1)
        {
            configuration.maxMessageFragments = value
        }
        if let value = try Self.value(maxQueuedFrames, "CALLGATE_MAX_QUEUED_FRAMES", "--max-queued-frames", min: 1) {
            configuration.maxQueuedFrames = value
        }
        if let value = try Self.value(historySeconds, "CALLGATE_HISTORY_SECONDS", "--history-seconds", min: 0) {
            guard value <= 86_400 else { throw ValidationError("--history-seconds must be at most 86400 (a day), got \(value)") }
            configuration.history.windowMillis = Int64(value) * 1000
        }
        if let value = try Self.value(historyPerUser, "CALLGATE_HISTORY_PER_USER", "--history-per-user", min: 1) {
            configuration.history.maxEntriesPerUser = value
        }
        if let value = try Self.value(historyBytes, "CALLGATE_HISTORY_BYTES", "--history-bytes", min: 0) {
            configuration.history.maxBytes = value
        }
        if let value = try Self.value(
            maxDevicesPerUser, "CALLGATE_MAX_DEVICES_PER_USER", "--max-devices-per-user", min: 1)
        {
            configuration.maxDevicesPerUser = value
        }
        if let value = try Self.value(
            maxSessionsPerUser, "CALLGATE_MAX_SESSIONS_PER_USER", "--max-sessions-per-user", min: 1)
        {
            configuration.core.maxMeetSessionsPerUser = value
        }
        if let value = try Self.value(maxCallsPerMinute, "CALLGATE_MAX_CALLS_PER_MINUTE", "--max-calls-per-minute", min: 1) {
            configuration.core.maxCallsPerMinute = value
        }
        if let value = try Self.value(maxSessionEvents, "CALLGATE_MAX_SESSION_EVENTS", "--max-session-events", min: 1) {
            configuration.core.maxSessionEventsPerWindow = value
        }
        if let value = try Self.value(maxCallMembers, "CALLGATE_MAX_CALL_MEMBERS", "--max-call-members", min: 2) {
            configuration.core.maxCallMembers = value
        }
        for (flag, variable, name, apply) in [
            (callerGraceSeconds, "CALLGATE_CALLER_GRACE_SECONDS", "--caller-grace-seconds",
             { (core: inout CoreConfiguration, seconds: Int) in core.callerGracePeriod = .seconds(seconds) }),
            (participantGraceSeconds, "CALLGATE_PARTICIPANT_GRACE_SECONDS", "--participant-grace-seconds",
             { (core: inout CoreConfiguration, seconds: Int) in core.participantGracePeriod = .seconds(seconds) }),
        ] {
            if let value = try Self.value(flag, variable, name, min: 0) {
                guard value <= Self.maxGraceSeconds else {
                    throw ValidationError("\(name) must be at most \(Self.maxGraceSeconds), got \(value)")
                }
                apply(&configuration.core, value)
            }
        }
        if let value = try Self.value(
            maxRecordingsPerSession, "CALLGATE_MAX_RECORDINGS_PER_SESSION", "--max-recordings-per-session", min: 1)
        {
            configuration.core.maxRecordingsPerSession = value
        }
        guard configuration.history.maxEntriesPerUser <= configuration.maxQueuedFrames / 2 else {
            throw ValidationError(
                "--history-per-user (\(configuration.history.maxEntriesPerUser)) may be at most half of --max-queued-frames (\(configuration.maxQueuedFrames)): a recovery replays up to that many pushes onto a socket at once")
        }
        if let value = try Self.value(maxQueuedWrites, "CALLGATE_MAX_QUEUED_WRITES", "--max-queued-writes", min: 1) {
            configuration.maxQueuedWrites = value
        }
        if let value = try Self.value(maxHeldOutput, "CALLGATE_MAX_HELD_OUTPUT", "--max-held-output", min: 1) {
            configuration.maxHeldOutput = value
        }
        if let value = try Self.value(livenessInterval, "CALLGATE_LIVENESS_INTERVAL", "--liveness-interval", min: 0) {
            configuration.livenessInterval = value == 0 ? nil : .seconds(value)
        }
        if let value = try Self.value(drainSeconds, "CALLGATE_DRAIN_SECONDS", "--drain-seconds", min: 0) {
            guard value <= Self.maxDrainSeconds else {
                throw ValidationError("--drain-seconds must be at most \(Self.maxDrainSeconds), got \(value)")
            }
            configuration.drainWindow = .seconds(value)
        }
        if let value = try Self.value(shutdownTimeout, "CALLGATE_SHUTDOWN_TIMEOUT", "--shutdown-timeout", min: 1) {
            configuration.shutdownTimeout = .seconds(value)
        }
    }

    /// The longest drain window, in seconds.
    static let maxDrainSeconds = 3600

    /// The longest grace period, in seconds.
    static let maxGraceSeconds = 3600

    /// The flag's value, else the variable's, checked against `min`; nil when neither is set.
    private static func value(_ flag: Int?, _ variable: String, _ name: String, min: Int) throws -> Int? {
        let text = EnvironmentDefault.string(variable)
        guard let value = try flag ?? text.map({ text in
            guard let number = Int(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
            return number
        }) else { return nil }
        guard value >= min else { throw ValidationError("\(name) must be at least \(min), got \(value)") }
        return value
    }

    /// The variable's comma-separated items, blanks dropped.
    private static func list(_ variable: String) -> [String] {
        (EnvironmentDefault.string(variable) ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
