import CallGateProtocol

/// A live call and the state of every user in it. Service thread only.
final class CallSession {
    /// The call as the wire shows it now.
    var call: Call
    /// Creation order among all calls, to list a user's calls oldest first.
    let ordinal: UInt64
    /// The pending ring timeout, while anyone still rings.
    var ringTimer: TimerID?
    /// Users of the call, as they were when they joined; `by` of pushes about someone who vanished.
    private(set) var profiles: [String: User]
    /// How many users still ring, kept so "nobody rings any more" is O(1) in big groups.
    private(set) var ringingCount = 0
    private var states: [String: MemberState] = [:]
    private var order: [String] = []

    /// A fresh ringing call: the caller joined, everyone in `ringing` rings.
    init(call: Call, ordinal: UInt64, ringing: [String]) {
        self.call = call
        self.ordinal = ordinal
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
    /// Whether the call rings a group.
    var isGroup: Bool { call.receiverType == .group }

    /// The state of `uid` in this call, nil for users never rung.
    func state(of uid: String) -> MemberState? {
        states[uid]
    }

    /// The users in `state`: the caller first, then callees in the order they were rung.
    func members(in state: MemberState) -> [String] {
        order.filter { states[$0] == state }
    }

    /// Every user that was ever in the call, in the same order.
    var everyone: [String] { order }

    /// Moves `uid` to `state`; callers keep the core's indexes in step.
    func set(_ uid: String, _ state: MemberState) {
        let previous = states.updateValue(state, forKey: uid)
        if previous == nil {
            order.append(uid)
        }
        if previous == .ringing {
            ringingCount -= 1
        }
        if state == .ringing {
            ringingCount += 1
        }
    }

    /// Remembers who joined, for later pushes about them.
    func remember(_ user: User) {
        profiles[user.uid] = user
    }
}
