import CallGateProtocol

/// What a ringing call knows of its callees' devices for the caller's ring progress: which
/// devices confirmed they show the ring (`confirmRinging`), which callees are being woken by a
/// push, and what the caller was last told. Made only for a call that has something to tell, so
/// a call nobody confirms costs nothing. Service thread only.
final class RingTally {
    /// The devices of each callee still ringing that confirmed.
    private var confirmed: [String: Set<ConnectionID>] = [:]
    /// How many devices `confirmed` holds.
    private var deviceCount = 0
    /// Callees with no device connected when rung, for whom a wake-up push was asked for, until
    /// a device of theirs confirms or they stop ringing.
    private var waking: Set<String>
    /// The progress the caller was last told; nil before the first push.
    var told: RingProgress?
    /// When the last push was made, monotonic milliseconds.
    var toldAt: Int64 = .min
    /// How many pushes the caller got: past `RingTally.quickPushes` the interval doubles with
    /// each, so a callee cycling a device through connect and confirm cannot fill the caller's
    /// push history.
    var pushes = 0
    /// The push waiting for the end of the interval, if one is scheduled.
    var timer: TimerID?

    /// A tally where `waking` are being woken and no device confirmed.
    init(waking: Set<String> = []) {
        self.waking = waking
    }

    /// `device` of callee `uid` shows the ring; returns whether that is news.
    func confirm(_ device: ConnectionID, of uid: String) -> Bool {
        waking.remove(uid)
        guard confirmed[uid, default: []].insert(device).inserted else { return false }
        deviceCount += 1
        return true
    }

    /// `device` of `uid` went away; returns whether it had confirmed.
    func withdraw(_ device: ConnectionID, of uid: String) -> Bool {
        guard confirmed[uid]?.remove(device) != nil else { return false }
        deviceCount -= 1
        if confirmed[uid]?.isEmpty == true {
            confirmed[uid] = nil
        }
        return true
    }

    /// `device` of `uid` came back on the connection `successor` (a reconnect that named it):
    /// its confirmation carries over, so a network blip shows the caller no dip.
    func move(_ device: ConnectionID, of uid: String, to successor: ConnectionID) {
        guard confirmed[uid]?.remove(device) != nil else { return }
        if confirmed[uid]?.insert(successor).inserted == false {
            deviceCount -= 1
        }
    }

    /// `uid` stopped ringing (answered, declined, missed): their devices no longer count.
    func forget(_ uid: String) {
        waking.remove(uid)
        if let devices = confirmed.removeValue(forKey: uid) {
            deviceCount -= devices.count
        }
    }

    /// How many pushes go at the base interval before it starts doubling.
    static let quickPushes = 8
    /// The longest interval between two pushes, however many there were, in milliseconds.
    static let longestInterval: Int64 = 8_000

    /// The interval before the next push, given the base one (`ringProgressInterval`).
    func interval(base: Int64) -> Int64 {
        let doublings = min(max(0, pushes - Self.quickPushes), 16)
        return min(base << doublings, max(base, Self.longestInterval))
    }

    /// The progress now, with `ringing` callees still ringing.
    func progress(ringing: Int) -> RingProgress {
        RingProgress(devices: deviceCount, users: confirmed.count, ringing: ringing, waking: waking.count)
    }
}
