import CallGateProtocol

/// The ringing state machine, the call sessions and the routing tables of the gateway.
///
/// It knows who is connected on which connection, which calls are live and who rings or takes
/// part in each, who joined which call session from which device, and turns every op and every
/// due timer into an `Outcome`: the reply, the pushes, the call log changes, the calls that
/// finished and when to wake it next. It performs no I/O: the server carries out the outcome.
/// Not thread-safe and lock-free by design: service thread only.
///
/// The ops live in extensions: `GatewayCore+Calls.swift` (the call that rings and has a status),
/// `GatewayCore+CallLifecycle.swift` (how a call lives in the routing tables and finishes) and
/// `GatewayCore+Sessions.swift` (the in-call session people join); what they write to the call
/// log is in `GatewayCore+CallLog.swift`.
public final class GatewayCore {
    let configuration: CoreConfiguration
    /// Where the time comes from: wall time for what clients see, monotonic for deadlines.
    public let clock: any CoreClock
    let groups: any GroupStore
    let sessionIDs: any SessionIDGenerator
    /// Gives the call log ids of new calls and meetings.
    let callIDs: any CallIDSource

    /// Whether ops report webhook events: the server keeps it to whether some webhook endpoint
    /// is enabled (its dispatcher follows the store, where any node may change them), so a
    /// group ring builds no event per member that nobody would be sent; the store checks each
    /// reported event's type against the endpoints in the transaction.
    public var reportsWebhookEvents = true
    /// Whether a `call.ringing` event reaches an endpoint that wakes a callee with no device by
    /// a push (the server keeps it to the enabled endpoints' event types): only then does the
    /// caller's ring progress count such a callee as `waking`.
    public var wakesCalleesByPush = true

    /// Connection <-> user routing.
    var directory = ConnectionDirectory()
    /// Live calls (initiated or ongoing) by session id.
    var calls: [String: LiveCall] = [:]
    /// uid -> the one call the user is engaged in: caller of an initiated call, or joined
    /// participant of an ongoing one.
    var engagedCall: [String: String] = [:]
    /// uid -> the answered calls the user put on hold to accept waiting calls, oldest first: they
    /// take part in them, but these do not engage them (`GatewayCore+CallWaiting`).
    var heldAway: [String: [String]] = [:]
    /// uid -> the live calls ringing that user, in the order they started ringing (an array:
    /// usually one call, and a set would hash every session id of a group ring twice).
    var ringingCalls: [String: [String]] = [:]
    /// Finished calls, remembered for `terminalRetention` so late ops get a precise error.
    var finishedCalls: [String: Call] = [:]
    /// uid -> session id -> the grace timer running for that user in that call.
    var graceTimers: [String: [String: TimerID]] = [:]
    /// Ring timeouts, grace periods and retention expiries.
    var timers = TimerQueue<TimerEvent>()
    /// Live call sessions by session id: the sessions of ringing calls someone joined, and
    /// standalone (`meet`) sessions.
    var sessions: [String: LiveSession] = [:]
    /// connection -> the ids of the sessions it joined.
    var joinedSessions: [ConnectionID: Set<String>] = [:]
    /// The histories of finished sessions, kept for `terminalRetention`.
    var finishedHistories: [String: SessionHistory] = [:]
    /// session id -> the timer that forgets its finished history.
    var historyExpiry: [String: TimerID] = [:]
    /// Devices that went away from the sessions they had joined, kept for
    /// `participantGracePeriod` so a connection coming back in their place takes them over.
    var departedDevices = DepartedDevices()
    /// How many meet sessions each user is in, for `maxMeetSessionsPerUser`.
    let meetAttendance = MeetAttendance()
    /// What is left of each user's call starts this minute, for `maxCallsPerMinute`.
    var callStarts = UserBudget(windowMillis: 60_000)
    /// The session events each user sent in the last ten seconds (`sendSessionEvent`).
    var sessionEvents = UserBudget(windowMillis: GatewayCore.sessionEventWindowMillis)
    /// The call log entries changed by the op under way.
    let logChanges = LogChanges()
    /// uid -> where the telling of their missed-call count stands, while its interval runs.
    var missedCallNotices: [String: MissedCallNotice] = [:]

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
        sessionIDs: any SessionIDGenerator = RandomSessionIDGenerator(),
        callIDs: any CallIDSource = CountingCallIDs()
    ) {
        self.callIDs = callIDs
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

    /// The connections of this gateway that get `delivery`: every device of its users but the
    /// one excluded, by user in order, then oldest first.
    public func connections(receiving delivery: Delivery) -> [ConnectionID] {
        var result: [ConnectionID] = []
        for uid in delivery.users {
            for connection in directory.connections(of: uid) where connection != delivery.excluding {
                result.append(connection)
            }
        }
        return result
    }

    /// How many connections are registered.
    public var connectionCount: Int {
        directory.count
    }

    /// How many calls are live (initiated or ongoing).
    public var activeCallCount: Int {
        calls.count
    }

    /// How many call sessions are live: ringing calls' sessions someone joined, and standalone ones.
    public var activeSessionCount: Int {
        sessions.count
    }

    // MARK: Connections

    /// Registers an authenticated device of `user`; the reply holds the calls it should show:
    /// those ringing this user (initiated, or a group call still ringing them, and not declined
    /// by them) and the one they take part in (caller of a ringing call, or participant of an
    /// answered one), oldest first. Stops the call grace periods of this user, since they are
    /// back.
    ///
    /// A device coming back names its previous connection in `previous`; when that was this
    /// user's, the new connection resumes the sessions it had joined (see `resumeSessions`), so a
    /// blip ends nothing and the other participants see nothing. Otherwise no session is
    /// rejoined: a device must `joinSession` again.
    ///
    /// Connecting a connection that is registered already re-registers it as `user`.
    /// Service thread only.
    public func connect(_ connection: ConnectionID, user: User, previous: ConnectionID? = nil) -> Outcome<Arrival> {
        transition { _ in
            unregister(connection)
            directory.add(connection, as: user)
            cancelGrace(of: user.uid)
            var arrival = Arrival(activeCalls: activeCalls(of: user.uid))
            if let previous, previous != connection {
                resumeSessions(of: previous, of: user.uid, on: connection, into: &arrival)
            }
            return arrival
        }
    }

    /// Cluster mode: registers device `connection` of `user`, which another node holds, before
    /// an op it forwarded here runs (this node owns the call). Pushes to the user go to every
    /// node that holds a device of theirs, so this changes where nothing is sent; it counts the
    /// user as present, as `connect` does, and is undone by `disconnect`. A connection
    /// registered already keeps its registration. Service thread only.
    public func admitRemote(_ connection: ConnectionID, as user: User) {
        guard directory.user(of: connection) == nil else { return }
        directory.add(connection, as: user)
        cancelGrace(of: user.uid)
    }

    /// Whether `sessionId` is a call or session this Core runs or remembers: an op on it is
    /// answered here. Service thread only.
    public func knows(_ sessionId: String) -> Bool {
        calls[sessionId] != nil || sessions[sessionId] != nil || finishedCalls[sessionId] != nil
            || finishedHistories[sessionId] != nil
    }

    /// Unregisters a device. When it was the user's last one, their grace period starts: as the
    /// caller of a ringing call (`callerGracePeriod`, then the call is cancelled) or as a
    /// participant of an answered call (`participantGracePeriod`, then they leave it with reason
    /// `disconnected`). The device also leaves every session it joined; a user with no joined
    /// device left in a session is removed from it after `participantGracePeriod` unless a
    /// device of theirs joins it again (connecting alone does not). Runs the timers already
    /// due, which includes the grace periods when they are zero, unless `runningTimers` is false
    /// (cluster mode: a node cut off from the cluster runs no timer). Unknown connections are
    /// ignored. Service thread only.
    public func disconnect(_ connection: ConnectionID, runningTimers: Bool = true) -> Outcome<Void> {
        transition { list in
            unregister(connection)
            if runningTimers {
                runDueTimers(into: &list)
            }
        }
    }

    /// Stops the call grace periods of `uid`: a device of theirs is back.
    func cancelGrace(of uid: String) {
        guard let pending = graceTimers.removeValue(forKey: uid) else { return }
        for timer in pending.values {
            timers.cancel(timer)
        }
    }

    func unregister(_ connection: ConnectionID) {
        guard let user = directory.remove(connection) else { return }
        detachFromSessions(connection)
        withdrawRingProgress(of: connection, uid: user.uid)
        guard directory.connections(of: user.uid).isEmpty else { return }
        // The calls held away for waiting ones wait for the user as the call they are in does.
        for sessionId in [engagedCall[user.uid]].compactMap({ $0 }) + (heldAway[user.uid] ?? []) {
            guard let live = calls[sessionId] else { continue }
            let period = live.call.callStatus == .initiated
                ? configuration.callerGracePeriod
                : configuration.participantGracePeriod
            startGrace(for: user.uid, in: sessionId, lasting: period)
        }
    }

    /// Decides whether `connection`'s user may get a call token for session `sessionId`; the
    /// server asks before it signs one, and signs it for the user returned.
    ///
    /// Not logged in: `ERR_USER_NOT_LOGGED_IN`. A malformed id: `ERR_INVALID_SESSION_ID`. A live
    /// ringing call: only its caller and the users it rang (callees, group members) get a token,
    /// others `ERR_NOT_PARTICIPANT`; whether they may join is decided at `joinSession`. A finished
    /// call still remembered: its terminal error (`ERR_CALL_CANCELLED`, `ERR_CALL_REJECTED`,
    /// `ERR_CALL_ENDED`). A live standalone session, or any other id: allowed, as joining it
    /// starts a standalone session. Changes nothing, so token requests cannot grow memory.
    /// Service thread only.
    public func authorizeCallToken(sessionId: String, from connection: ConnectionID) -> Result<User, CoreError> {
        do throws(CoreError) {
            let user = try requireUser(connection)
            guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
            if let live = calls[sessionId] {
                guard live.state(of: user.uid) != nil else { throw .notParticipant("you are not in this call") }
            } else if let call = finishedCalls[sessionId] {
                throw .finished(call.callStatus)
            }
            return .success(user)
        } catch {
            return .failure(error)
        }
    }

    // MARK: Timers

    /// The deadline, on the clock's monotonic milliseconds, of the earliest pending timer (ring
    /// timeout, grace period, idle timeout or retention expiry), nil when none is pending.
    /// Every outcome carries it too. Service thread only.
    public var nextDeadline: Int64? {
        timers.nextDeadline()
    }

    /// Runs every timer whose deadline is at or before the clock's now, earliest first:
    /// - ring timeout, nobody answered: the call ends `unanswered`, the caller's devices get
    ///   `onOutgoingCallRejected {call}` (no `by`), ringing devices get `onIncomingCallCanceled`
    ///   with reason `unanswered`;
    /// - ring timeout of an answered group call: members still ringing stop with reason
    ///   `unanswered` and the call goes on;
    /// - the caller's grace period: the ringing call is cancelled;
    /// - a participant's grace period: they leave the call with reason `disconnected`;
    /// - retention: a finished call is forgotten, later ops on it get `ERR_CALL_NOT_FOUND`;
    /// - a session's idle timeout: its only participant gets `onSessionTimeout`, is removed, and
    ///   the session ends (with its ringing call, if any; see `joinSession`);
    /// - a session participant's grace period: they leave the session as with `leaveSession`,
    ///   with reason `disconnected`;
    /// - history retention: a finished session's history is forgotten;
    /// - a meeting resumed after a restart that nobody joined again within
    ///   `participantGracePeriod` ends.
    ///
    /// A call that ends here ends its session too, with `onCallEnded`. Service thread only.
    public func fireDueTimers() -> Outcome<Void> {
        transition { list in runDueTimers(into: &list) }
    }

    func runDueTimers(into list: inout EffectList) {
        let now = monotonicNow
        while let event = timers.popDue(now: now) {
            switch event {
            case .ringTimeout(let sessionId):
                ringTimedOut(sessionId, into: &list)
            case .grace(let uid, let sessionId):
                graceEnded(for: uid, in: sessionId, into: &list)
            case .forget(let sessionId):
                finishedCalls[sessionId] = nil
            case .idle(let sessionId):
                idleTimedOut(sessionId, into: &list)
            case .sessionGrace(let uid, let sessionId):
                sessionGraceEnded(for: uid, in: sessionId, into: &list)
            case .forgetHistory(let sessionId):
                finishedHistories[sessionId] = nil
                historyExpiry[sessionId] = nil
            case .ringProgress(let sessionId):
                ringProgressDue(sessionId, into: &list)
            case .missedCalls(let uid):
                missedCallsDue(uid, into: &list)
            case .vacant(let sessionId):
                if let session = sessions[sessionId], session.uids.isEmpty {
                    closeSession(sessionId, alsoTelling: [], excluding: nil, into: &list)
                }
            }
        }
    }

    // MARK: Shared by the ops

    /// Runs one op and gathers everything it did into its outcome: the reply (a thrown
    /// `CoreError` becomes the error reply, with no pushes), the deliveries it added, the log
    /// entries it changed, the calls it finished, the webhook events it reported and the next
    /// timer deadline.
    func transition<Reply>(_ op: (inout EffectList) throws(CoreError) -> Reply) -> Outcome<Reply> {
        var list = EffectList(reportsWebhookEvents: reportsWebhookEvents)
        let reply: Result<Reply, CoreError>
        do {
            reply = .success(try op(&list))
        } catch {
            reply = .failure(error)
            list.refused()
        }
        return Outcome(
            reply: reply, deliveries: list.deliveries, logChanges: takeLogChanges(), finishedCalls: list.finishedCalls,
            webhookEvents: list.webhookEvents, engagements: list.engagements, nextDeadline: timers.nextDeadline())
    }

    /// The authenticated user of `connection`, or `ERR_USER_NOT_LOGGED_IN`.
    func requireUser(_ connection: ConnectionID) throws(CoreError) -> User {
        guard let user = directory.user(of: connection) else { throw .notLoggedIn }
        return user
    }

    /// A session id no live or remembered call or session has.
    func freshSessionID() -> String {
        while true {
            let candidate = sessionIDs.makeSessionID()
            if calls[candidate] == nil, finishedCalls[candidate] == nil,
               sessions[candidate] == nil, finishedHistories[candidate] == nil {
                return candidate
            }
        }
    }

    /// The call log id of a new call or meeting; throws when none can be given now (cluster
    /// mode, before a block of ids arrived from the store).
    func nextOrdinal() throws(CoreError) -> Int64 {
        guard let id = callIDs.next() else { throw .noCallIDs }
        return id
    }

    /// The best description of a user: their newest connection's, else the one they joined
    /// their current call with, else just their uid.
    func profile(of uid: String) -> User {
        if let user = directory.profile(of: uid) {
            return user
        }
        if let sessionId = engagedCall[uid], let user = calls[sessionId]?.profiles[uid] {
            return user
        }
        return User(uid: uid, name: uid)
    }

    /// The current time in Unix milliseconds, for dates.
    var nowMillis: Int64 {
        clock.nowMillis()
    }

    /// The current monotonic time in milliseconds: every timer's deadline is on this clock.
    var monotonicNow: Int64 {
        clock.monotonicMillis()
    }

    /// The current time in Unix seconds, as call timestamps carry it.
    var nowSeconds: Int64 {
        clock.nowMillis() / 1000
    }
}
