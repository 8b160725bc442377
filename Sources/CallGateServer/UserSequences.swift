import CallGateCore

/// Cluster mode: what this node knows of the push sequences of the users it holds devices of.
///
/// Redis numbers every push (`PushStream`); a node learns the numbers from the pushes it
/// receives and the positions its connecting devices read. It keeps, per user, the last seq
/// seen (a push Redis could not number goes to this node's devices under it, see
/// `+Output`), and, while a device of the user is on its way in, the pushes that came meanwhile:
/// they were published after its subscription and may be after the position it read, so it
/// gets them once connected. Service thread only.
struct UserSequences {
    /// The most pushes held per user while their devices arrive (the history's per-user bound).
    let maxHeld: Int
    private var last: [String: UInt64] = [:]
    private var held: [String: [HistoryEntry]] = [:]

    init(maxHeld: Int) {
        self.maxHeld = maxHeld
    }

    /// The last seq seen of `uid`'s sequence; nil when none was seen here.
    func lastSeq(of uid: String) -> UInt64? {
        last[uid]
    }

    /// A device of `uid` read their sequence at `seq`.
    mutating func read(_ uid: String, at seq: UInt64) {
        last[uid] = max(last[uid] ?? 0, seq)
    }

    /// A push to `uid` came; held too while a device of theirs is `arriving`. The oldest held
    /// go first past `maxHeld`.
    mutating func received(_ entry: HistoryEntry, for uid: String, arriving: Bool) {
        last[uid] = max(last[uid] ?? 0, entry.seq)
        guard arriving else { return }
        var pushes = held[uid, default: []]
        if pushes.count >= maxHeld {
            pushes.removeFirst(pushes.count - maxHeld + 1)
        }
        pushes.append(entry)
        held[uid] = pushes
    }

    /// The pushes to `uid` held while their devices arrived, after `seq`.
    func held(for uid: String, after seq: UInt64) -> [HistoryEntry] {
        (held[uid] ?? []).filter { $0.seq > seq }
    }

    /// No device of `uid` is on its way in any more.
    mutating func arrived(_ uid: String) {
        held[uid] = nil
    }

    /// No device of `uid` is left here.
    mutating func forget(_ uid: String) {
        last[uid] = nil
        held[uid] = nil
    }
}
