import ArgumentParser
import CallGateCore
import CallGateServer
import Configuration
import Foundation

/// The `serve` options for limits, liveness and shutdown.
struct LimitOptions: ParsableArguments {
    @Option(.allowedOrigin) var allowedOrigins: [String]
    @Option(.maxConnections) var maxConnections: Int?
    @Option(.maxConnectionsPerAddress) var maxConnectionsPerAddress: Int?
    @Option(.maxMessagesPerSecond) var maxMessagesPerSecond: Int?
    @Option(.maxMessageBytes) var maxMessageBytes: Int?
    @Option(.maxMessageFragments) var maxMessageFragments: Int?
    @Option(.maxQueuedFrames) var maxQueuedFrames: Int?
    @Option(.historySeconds) var historySeconds: Int?
    @Option(.historyPerUser) var historyPerUser: Int?
    @Option(.historyBytes) var historyBytes: Int?
    @Option(.maxDevicesPerUser) var maxDevicesPerUser: Int?
    @Option(.maxSessionsPerUser) var maxSessionsPerUser: Int?
    @Option(.maxCallsPerMinute) var maxCallsPerMinute: Int?
    @Option(.maxSessionEvents) var maxSessionEvents: Int?
    @Option(.maxCallMembers) var maxCallMembers: Int?
    @Option(.callerGraceSeconds) var callerGraceSeconds: Int?
    @Option(.participantGraceSeconds) var participantGraceSeconds: Int?
    @Option(.maxRecordingsPerSession) var maxRecordingsPerSession: Int?
    @Option(.maxQueuedWrites) var maxQueuedWrites: Int?
    @Option(.maxHeldOutput) var maxHeldOutput: Int?
    @Option(.livenessInterval) var livenessInterval: Int?
    @Option(.drainSeconds) var drainSeconds: Int?
    @Option(.shutdownTimeout) var shutdownTimeout: Int?

    /// Each flag with its setting.
    var given: [(ServeSetting, any GivenFlag)] {
        [
            (.allowedOrigin, allowedOrigins), (.maxConnections, maxConnections),
            (.maxConnectionsPerAddress, maxConnectionsPerAddress), (.maxMessagesPerSecond, maxMessagesPerSecond),
            (.maxMessageBytes, maxMessageBytes), (.maxMessageFragments, maxMessageFragments),
            (.maxQueuedFrames, maxQueuedFrames), (.historySeconds, historySeconds), (.historyPerUser, historyPerUser),
            (.historyBytes, historyBytes), (.maxDevicesPerUser, maxDevicesPerUser),
            (.maxSessionsPerUser, maxSessionsPerUser), (.maxCallsPerMinute, maxCallsPerMinute),
            (.maxSessionEvents, maxSessionEvents), (.maxCallMembers, maxCallMembers),
            (.callerGraceSeconds, callerGraceSeconds), (.participantGraceSeconds, participantGraceSeconds),
            (.maxRecordingsPerSession, maxRecordingsPerSession), (.maxQueuedWrites, maxQueuedWrites),
            (.maxHeldOutput, maxHeldOutput), (.livenessInterval, livenessInterval), (.drainSeconds, drainSeconds),
            (.shutdownTimeout, shutdownTimeout),
        ]
    }

    /// Writes the limits of `settings` into `configuration`; throws when two of them disagree.
    static func apply(_ settings: ServeSettings, to configuration: inout ServerConfiguration) throws {
        let origins = settings.list(.allowedOrigin)
        for origin in origins where !origin.contains("://") {
            throw ValidationError("an allowed origin is scheme://host[:port], got '\(origin)'")
        }
        configuration.allowedOrigins = origins
        if let value = settings.integer(.maxConnections) { configuration.maxConnections = value }
        if let value = settings.integer(.maxConnectionsPerAddress) { configuration.maxConnectionsPerAddress = value }
        if let value = settings.integer(.maxMessagesPerSecond) { configuration.maxMessagesPerSecond = value }
        if let value = settings.integer(.maxMessageBytes) { configuration.maxMessageBytes = value }
        if let value = settings.integer(.maxMessageFragments) { configuration.maxMessageFragments = value }
        if let value = settings.integer(.maxQueuedFrames) { configuration.maxQueuedFrames = value }
        if let value = settings.integer(.historySeconds) { configuration.history.windowMillis = Int64(value) * 1000 }
        if let value = settings.integer(.historyPerUser) { configuration.history.maxEntriesPerUser = value }
        if let value = settings.integer(.historyBytes) { configuration.history.maxBytes = value }
        if let value = settings.integer(.maxDevicesPerUser) { configuration.maxDevicesPerUser = value }
        if let value = settings.integer(.maxSessionsPerUser) { configuration.core.maxMeetSessionsPerUser = value }
        if let value = settings.integer(.maxCallsPerMinute) { configuration.core.maxCallsPerMinute = value }
        if let value = settings.integer(.maxSessionEvents) { configuration.core.maxSessionEventsPerWindow = value }
        if let value = settings.integer(.maxCallMembers) { configuration.core.maxCallMembers = value }
        if let value = settings.integer(.callerGraceSeconds) { configuration.core.callerGracePeriod = .seconds(value) }
        if let value = settings.integer(.participantGraceSeconds) {
            configuration.core.participantGracePeriod = .seconds(value)
        }
        if let value = settings.integer(.maxRecordingsPerSession) { configuration.core.maxRecordingsPerSession = value }
        guard configuration.history.maxEntriesPerUser <= configuration.maxQueuedFrames / 2 else {
            throw ValidationError(
                "history-per-user (\(configuration.history.maxEntriesPerUser)) may be at most half of max-queued-frames (\(configuration.maxQueuedFrames)): a recovery replays up to that many pushes onto a socket at once")
        }
        if let value = settings.integer(.maxQueuedWrites) { configuration.maxQueuedWrites = value }
        if let value = settings.integer(.maxHeldOutput) { configuration.maxHeldOutput = value }
        if let value = settings.integer(.livenessInterval) {
            configuration.livenessInterval = value == 0 ? nil : .seconds(value)
        }
        if let value = settings.integer(.drainSeconds) { configuration.drainWindow = .seconds(value) }
        if let value = settings.integer(.shutdownTimeout) { configuration.shutdownTimeout = .seconds(value) }
    }
}
