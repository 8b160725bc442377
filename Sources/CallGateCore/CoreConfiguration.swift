/// The tunables of the ringing state machine and of call sessions.
///
/// Ring timeouts are whole seconds, like the wire's `timeout` field; the other periods are
/// `Duration`s and are applied with millisecond precision.
public struct CoreConfiguration: Hashable, Sendable {
    /// How long a call rings when the request names no timeout, in seconds.
    public var defaultRingTimeout: Int
    /// The ring timeouts a request may ask for, in seconds; others get `ERR_BAD_REQUEST`.
    public var allowedRingTimeouts: ClosedRange<Int>
    /// How long a ringing call survives after every device of its caller disconnected.
    public var callerGracePeriod: Duration
    /// How long an answered call keeps a participant after every device of theirs disconnected.
    public var participantGracePeriod: Duration
    /// Whether calling a user who is in an answered call ends the new call as `busy` at once
    /// (and a group call skips such members); off means they ring like everyone else.
    public var autoBusy: Bool
    /// The largest `metadata` accepted, in bytes of compact JSON.
    public var maxMetadataBytes: Int
    /// The deepest nesting of arrays and objects accepted in `metadata` (`{}` is 1).
    public var maxMetadataDepth: Int
    /// How long finished calls are remembered, so late ops get `ERR_CALL_ENDED` and the like
    /// rather than `ERR_CALL_NOT_FOUND`; afterwards they are forgotten so memory stays bounded.
    public var terminalRetention: Duration
    /// How long a participant may stay alone in a session when `joinSession` names no
    /// `idleTimeout`, in seconds.
    public var defaultIdleTimeout: Int
    /// The idle timeouts `joinSession` may ask for, in seconds; others get `ERR_BAD_REQUEST`.
    public var allowedIdleTimeouts: ClosedRange<Int>
    /// How many standalone (`meet`) sessions one user may be in at once; joining one more gets
    /// `ERR_TOO_MANY_SESSIONS`.
    public var maxMeetSessionsPerUser: Int
    /// How many calls one user may start in a minute; more get `ERR_RATE_LIMITED`.
    public var maxCallsPerMinute: Int
    /// How many recordings one session may have; starting one more gets `ERR_TOO_MANY_RECORDINGS`.
    public var maxRecordingsPerSession: Int
    /// How many mute changes a session's history keeps (the newest); older ones are dropped.
    public var maxMuteChangesKept: Int
    /// The shortest time between two `onOutgoingCallRinging` pushes of one call: changes closer
    /// together are told in one push at the end of it.
    public var ringProgressInterval: Duration
    /// The shortest time between two `onMissedCallsChanged` pushes to a user, doubled after each
    /// push that told changes held back by it (up to 16 times), back to itself once an interval
    /// passes without a change.
    public var missedCallsInterval: Duration
    /// The largest `data` of a session event accepted, in bytes of compact JSON.
    public var maxSessionEventBytes: Int
    /// The deepest nesting of arrays and objects accepted in a session event's `data`.
    public var maxSessionEventDepth: Int
    /// How many session events one user may send per ten seconds; more get `ERR_RATE_LIMITED`.
    public var maxSessionEventsPerWindow: Int
    /// How many users a call may have taking part or ringing for an invite may bring it to;
    /// past it `inviteToCall` gets `ERR_TOO_MANY_PARTICIPANTS`.
    public var maxCallMembers: Int

    /// Makes a configuration; every default is the protocol's documented default.
    public init(
        defaultRingTimeout: Int = 45,
        allowedRingTimeouts: ClosedRange<Int> = 1...300,
        callerGracePeriod: Duration = .seconds(10),
        participantGracePeriod: Duration = .seconds(30),
        autoBusy: Bool = true,
        maxMetadataBytes: Int = 4096,
        maxMetadataDepth: Int = 8,
        terminalRetention: Duration = .seconds(300),
        defaultIdleTimeout: Int = 180,
        allowedIdleTimeouts: ClosedRange<Int> = 1...86_400,
        maxMeetSessionsPerUser: Int = 5,
        maxCallsPerMinute: Int = 30,
        maxRecordingsPerSession: Int = 20,
        maxMuteChangesKept: Int = 100,
        ringProgressInterval: Duration = .milliseconds(250),
        missedCallsInterval: Duration = .seconds(1),
        maxSessionEventBytes: Int = 2048,
        maxSessionEventDepth: Int = 8,
        maxSessionEventsPerWindow: Int = 50,
        maxCallMembers: Int = 100
    ) {
        self.defaultRingTimeout = defaultRingTimeout
        self.allowedRingTimeouts = allowedRingTimeouts
        self.callerGracePeriod = callerGracePeriod
        self.participantGracePeriod = participantGracePeriod
        self.autoBusy = autoBusy
        self.maxMetadataBytes = maxMetadataBytes
        self.maxMetadataDepth = maxMetadataDepth
        self.terminalRetention = terminalRetention
        self.defaultIdleTimeout = defaultIdleTimeout
        self.allowedIdleTimeouts = allowedIdleTimeouts
        self.maxMeetSessionsPerUser = maxMeetSessionsPerUser
        self.maxCallsPerMinute = maxCallsPerMinute
        self.maxRecordingsPerSession = maxRecordingsPerSession
        self.maxMuteChangesKept = maxMuteChangesKept
        self.ringProgressInterval = ringProgressInterval
        self.missedCallsInterval = missedCallsInterval
        self.maxSessionEventBytes = maxSessionEventBytes
        self.maxSessionEventDepth = maxSessionEventDepth
        self.maxSessionEventsPerWindow = maxSessionEventsPerWindow
        self.maxCallMembers = maxCallMembers
    }
}
