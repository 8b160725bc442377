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

    /// `uid` stopped ringing (answered, declined, missed): their devices no longer count.
    func forget(_ uid: String) {
        waking.remove(uid)
        if let devices = confirmed.removeValue(forKey: uid) {
            deviceCount -= devices.count
        }
    }

    /// The progress now, with `ringing` callees still ringing.
    func progress(ringing: Int) -> RingProgress {
        RingProgress(devices: deviceCount, users: confirmed.count, ringing: ringing, waking: waking.count)
    }
}
