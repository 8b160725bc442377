import CallGateProtocol

/// A rung call while it lives (initiated or ongoing), and the state of every user in it.
///
/// Every change that shows in the call log marks the call in `changes`, so the op that made it
/// carries the new log entry in its outcome. Service thread only.
final class LiveCall {
    /// The call as the wire shows it now.
    var call: Call {
        didSet { changes.mark(self) }
    }
    /// The call's number: creation order among all calls, unique across restarts, and its call
    /// log id.
    let ordinal: Int64
    /// The pending ring timeout, while anyone still rings.
    var ringTimer: TimerID?
    /// The callee devices that confirmed the ring and the progress the caller was told; nil
    /// until there is something to tell.
    var tally: RingTally?
    /// When the ring timeout passes, Unix milliseconds, for the call log.
    var ringDeadline: Int64? {
        didSet { changes.mark(self) }
    }
    /// Each user's time in the call once it was answered, for the call log.
    private(set) var stays: [String: StayLog] = [:]
    /// Recordings of the call's session before a restart; a session started again continues them.
    var priorRecordings: [RecordingHistory] = []
    /// What happened so far, for the timeline; saved with the call's next change.
    var steps = CallSteps()
    /// Users of the call, as they were when rung (if connected) or when they joined: `by` of
    /// pushes about someone who vanished, and the names the call log shows.
    private(set) var profiles: [String: User]
    /// How many users still ring, kept so "nobody rings any more" is O(1) in big groups.
    private(set) var ringingCount = 0
    /// Every user ever in the call, in the order they came in, and each one's state at the same
    /// position: walking a 100-member group hashes no uid.
    private var order: [String] = []
    private var states: [MemberState] = []
    private var positions: [String: Int] = [:]
    /// Callees and invitees that were busy in another call and not rung: the call log shows them
    /// as missed, until a later invite rings them.
    private(set) var busySkipped: [String]
    /// Where the call reports that its log entry changed.
    private unowned let changes: LogChanges

    /// A fresh ringing call: the caller joined, everyone in `ringing` rings, and those in
    /// `busySkipped` are not rung as they are busy elsewhere.
    init(call: Call, ordinal: Int64, ringing: [String], busySkipped: [String] = [], changes: LogChanges) {
        self.call = call
        self.ordinal = ordinal
        self.busySkipped = busySkipped
        self.changes = changes
        self.profiles = [call.initiator.uid: call.initiator]
        set(call.initiator.uid, .joined)
        for uid in ringing {
            set(uid, .ringing)
        }
    }

    /// The session id.
    var id: String { call.sessionId }
    /// The caller's uid.
    var callerUID: String { call.initiator.uid }
    /// Whether the call behaves as a group call: it rang a group, or a 1:1 call grew past its
    /// two users by `inviteToCall` (then one leaver no longer ends it for everyone).
    var isGroup: Bool { call.receiverType == .group || order.count > 2 }

    /// The state of `uid` in this call, nil for users never rung.
    func state(of uid: String) -> MemberState? {
        positions[uid].map { states[$0] }
    }

    /// The users in `state`: the caller first, then callees in the order they were rung.
    func members(in state: MemberState) -> [String] {
        order.indices.compactMap { states[$0] == state ? order[$0] : nil }
    }

    /// Every user that was ever in the call, in the same order.
    var everyone: [String] { order }

    /// Every user that was ever in the call with their state, in the same order.
    var memberships: Zip2Sequence<[String], [MemberState]> { zip(order, states) }

    /// Moves `uid` to `state`; the Core keeps its indexes in step (see `GatewayCore.move`).
    func set(_ uid: String, _ state: MemberState) {
        let previous: MemberState?
        if let position = positions[uid] {
            previous = states[position]
            states[position] = state
        } else {
            previous = nil
            positions[uid] = order.count
            order.append(uid)
            states.append(state)
        }
        if previous == .ringing {
            ringingCount -= 1
        }
        if state == .ringing {
            ringingCount += 1
        }
        changes.mark(self)
    }

    /// A stay of `uid` in the answered call starts at `now` (nothing if one runs).
    func startStay(of uid: String, at now: Int64) {
        stays[uid, default: StayLog()].start(at: now)
        changes.mark(self)
    }

    /// The stay of `uid` in progress, if any, ends at `now`.
    func endStay(of uid: String, at now: Int64) {
        stays[uid]?.end(at: now)
        changes.mark(self)
    }

    /// Every stay in progress ends at `now`: the call is over.
    func endAllStays(at now: Int64) {
        for uid in stays.keys {
            stays[uid]?.end(at: now)
        }
        changes.mark(self)
    }

    /// Puts back the stays a restarted gateway read from the call log.
    func restoreStays(_ restored: [String: StayLog]) {
        stays = restored
    }

    /// Notes that invitee `uid`, new to the call, was busy in another call and not rung.
    func skipBusy(_ uid: String) {
        guard positions[uid] == nil, !busySkipped.contains(uid) else { return }
        busySkipped.append(uid)
        changes.mark(self)
    }

    /// Rings invitee `uid` (new, or in the call before and out of it now); a user skipped as busy
    /// before is a member now.
    func ringInvitee(_ uid: String) {
        busySkipped.removeAll { $0 == uid }
        set(uid, .ringing)
    }

    /// Remembers who joined, for later pushes about them and the names in the log.
    func remember(_ user: User) {
        guard profiles[user.uid] != user else { return }
        profiles[user.uid] = user
        changes.mark(self)
    }
}

/// Where one user stands in one call.
enum MemberState: Hashable {
    /// Their devices ring.
    case ringing
    /// They take part: the caller from the start, a callee once they accepted.
    case joined
    /// They declined (rejected or busy).
    case declined
    /// They were still ringing when the ring timeout passed, while the group call went on.
    case missed
    /// They left an answered group call that went on without them.
    case left
}

/// The times one user spent in an answered call: first join, last leave, and the seconds of
/// every stay, with the stay in progress still open. Service thread only.
struct StayLog: Hashable {
    /// When their first stay started, Unix seconds.
    var joinedAt: Int64?
    /// When their last stay ended; nil while one runs.
    var leftAt: Int64?
    /// Seconds of the stays that are over.
    var closedSeconds: Int64 = 0
    /// When the stay in progress started; nil when none runs.
    var stayStartedAt: Int64?
    /// Seconds on hold logged before this gateway ran the call (it took it over); the session's
    /// history holds the rest.
    var priorHeldSeconds: Int64?

    /// A stay starts at `now`, unless one runs; the first one sets `joinedAt`.
    mutating func start(at now: Int64) {
        guard stayStartedAt == nil else { return }
        joinedAt = joinedAt ?? now
        leftAt = nil
        stayStartedAt = now
    }

    /// The stay in progress, if any, ends at `now`.
    mutating func end(at now: Int64) {
        guard let start = stayStartedAt else { return }
        closedSeconds += max(0, now - start)
        leftAt = now
        stayStartedAt = nil
    }
}
