import CallGateProtocol

/// The ringing state machine, the call sessions and the routing tables of the gateway.
///
/// It knows who is connected on which connection, which calls are live and who rings or takes
/// part in each, who joined which call session from which device, and turns every op and every
/// due timer into a reply plus the pushes to send.
/// It performs no I/O: the server sends what it returns, and asks `nextDeadline` when to call
/// `fireDueTimers`. Not thread-safe and lock-free by design: service thread only.
public final class GatewayCore {
    let configuration: CoreConfiguration
    let clock: any CoreClock
    let groups: any GroupStore
    let sessionIDs: any SessionIDGenerator

    /// Connection <-> user routing.
    var directory = ConnectionDirectory()
    /// Live calls (initiated or ongoing) by session id.
    var sessions: [String: CallSession] = [:]
    /// uid -> the one call the user is engaged in: caller of an initiated call, or joined
    /// participant of an ongoing one.
    var engagedCall: [String: String] = [:]
    /// uid -> the live calls ringing that user, in the order they started ringing (an array:
    /// usually one call, and a set would hash every session id of a group ring twice).
    var ringingCalls: [String: [String]] = [:]
    /// Finished calls, remembered for `terminalRetention` so late ops get a precise error.
    var finishedCalls: [String: Call] = [:]
    /// uid -> session id -> the grace timer running for that user in that call.
    var graceTimers: [String: [String: TimerID]] = [:]
    /// Ring timeouts, grace periods and retention expiries.
    var timers = TimerQueue<TimerEvent>()
    /// The number of the last call (or meeting) created.
    var lastOrdinal: Int64 = 0
    /// Live call sessions by session id: the sessions of ringing calls someone joined, and
    /// standalone (`meet`) sessions.
    var rooms: [String: SessionRoom] = [:]
    /// connection -> the ids of the sessions it joined.
    var joinedRooms: [ConnectionID: Set<String>] = [:]
    /// The histories of finished sessions, kept for `terminalRetention`.
    var finishedHistories: [String: SessionHistory] = [:]
    /// session id -> the timer that forgets its finished history.
    var historyExpiry: [String: TimerID] = [:]
    /// How many meet sessions each user is in, for `maxMeetSessionsPerUser`.
    let meetAttendance = MeetAttendance()
    /// What is left of each user's call starts this minute, for `maxCallsPerMinute`.
    var callStarts = CallStartBudget()
    /// Call log id -> the call or meeting whose log entry changed since the server last took
    /// the changes.
    var logChanges: [Int64: LogSource] = [:]

    /// Makes a core with no connections and no calls.
    ///
    /// - Parameters:
    ///   - configuration: timeouts, grace periods and limits.
    ///   - clock: where the time comes from; tests pass a manual clock.
    ///   - groups: group membership, read when a group is rung.
    ///   - sessionIDs: makes the ids of new calls.
    public init(
        configuration: CoreConfiguration = .init(),
        clock: any CoreClock,
        groups: any GroupStore,
        sessionIDs: any SessionIDGenerator = RandomSessionIDGenerator()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.groups = groups
        self.sessionIDs = sessionIDs
    }

    /// The user a connection authenticated as, nil before `connect` or after `disconnect`.
    public func user(of connection: ConnectionID) -> User? {
        directory.user(of: connection)
    }

    /// The connections of a user, oldest first: every device a push for them goes to.
    public func connections(of uid: String) -> [ConnectionID] {
        directory.connections(of: uid)
    }

    /// How many connections are registered.
    public var connectionCount: Int {
        directory.count
    }

    /// How many calls are live (initiated or ongoing).
    public var activeCallCount: Int {
        sessions.count
    }

    /// How many call sessions are live: ringing calls' sessions someone joined, and standalone ones.
    public var activeSessionCount: Int {
        rooms.count
    }
}
