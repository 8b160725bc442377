import CallGateCore

/// Cluster mode: the pushes to users that came while a device of theirs was on its way in.
///
/// A connecting device's node listens to the user's channel before it reads where their
/// sequence stands (`PushStream.read`): a push published in between may come before the read's
/// answer, when the device is not registered yet, so it is held and given to the device once
/// connected if it follows the position read. Bounded per user by the history's per-user
/// bound (the oldest go first; a device then finds its sequence broken and reconnects).
/// Service thread only.
struct ArrivingPushes {
    /// The most pushes held per user.
    let maxHeld: Int
    private var held: [String: [(epoch: String, entry: HistoryEntry)]] = [:]

    init(maxHeld: Int) {
        self.maxHeld = maxHeld
    }

    /// Holds a push to `uid`, numbered in sequence `epoch`.
    mutating func hold(_ entry: HistoryEntry, epoch: String, for uid: String) {
        var pushes = held[uid, default: []]
        if pushes.count >= maxHeld {
            pushes.removeFirst(pushes.count - maxHeld + 1)
        }
        pushes.append((epoch, entry))
        held[uid] = pushes
    }

    /// The pushes held for `uid` that follow `position`, in order.
    func following(_ position: HistoryPosition, of uid: String) -> [HistoryEntry] {
        (held[uid] ?? []).filter { $0.epoch == position.epoch && $0.entry.seq > position.seq }.map(\.entry)
    }

    /// No device of `uid` is on its way in any more.
    mutating func arrived(_ uid: String) {
        held[uid] = nil
    }
}
