import CallGateProtocol

/// Missed calls in sync: the store counts each user's unseen missed calls (`MissedCallStore`);
/// the Core tells the count to every device of the user (`onMissedCallsChanged`), at most once
/// per interval and never a revision older than one told or held within it (counts heard out of
/// order come close together; devices keep the highest revision anyway): the first change after a quiet interval at once, the changes
/// within it in one push at its end, the interval doubling while changes keep coming (a flood of
/// missed calls costs a push per user per `16 × missedCallsInterval`, not one per call). A
/// change the user made (`markCallsSeen`) goes at once. Service thread only.
extension GatewayCore {
    /// The store changed these users' counts (`urgent`: the user marked calls seen): their
    /// devices hear the newer ones, now or at the end of their interval.
    public func missedCallsChanged(_ counts: [String: MissedCalls], urgent: Bool = false) -> Outcome<Void> {
        transition { list in
            for (uid, count) in counts {
                noteMissedCalls(count, of: uid, urgent: urgent, into: &list)
            }
        }
    }

    /// The newest count of `uid` this gateway told or holds, if it tells one now.
    public func missedCalls(of uid: String) -> MissedCalls? {
        missedCallNotices[uid].flatMap { $0.pending ?? $0.told }
    }

    private func noteMissedCalls(_ count: MissedCalls, of uid: String, urgent: Bool, into list: inout EffectList) {
        var notice = missedCallNotices[uid] ?? MissedCallNotice()
        if let newest = notice.pending ?? notice.told, newest.revision >= count.revision {
            guard urgent, let pending = notice.pending else { return }
            notice.pending = nil
            tell(pending, to: uid, in: &notice, into: &list)
            missedCallNotices[uid] = notice
            return
        }
        if notice.timer != nil, !urgent {
            notice.pending = count
        } else {
            notice.pending = nil
            tell(count, to: uid, in: &notice, into: &list)
        }
        missedCallNotices[uid] = notice
    }

    /// The interval of `uid`'s count ended: what it held back goes now, and a longer interval
    /// starts; or, nothing held back, the notice is done.
    func missedCallsDue(_ uid: String, into list: inout EffectList) {
        guard var notice = missedCallNotices[uid] else { return }
        notice.timer = nil
        guard let pending = notice.pending else {
            missedCallNotices[uid] = nil
            return
        }
        notice.pending = nil
        notice.streak = min(notice.streak + 1, MissedCallNotice.longestStreak)
        tell(pending, to: uid, in: &notice, into: &list)
        missedCallNotices[uid] = notice
    }

    /// Pushes `count` to every device of `uid` and starts the notice's interval.
    private func tell(_ count: MissedCalls, to uid: String, in notice: inout MissedCallNotice, into list: inout EffectList) {
        list.send(.missedCallsChanged(count), to: [uid])
        notice.told = count
        if let timer = notice.timer {
            timers.cancel(timer)
        }
        let interval = configuration.missedCallsInterval.wholeMilliseconds << notice.streak
        notice.timer = timers.schedule(.missedCalls(uid: uid), at: monotonicNow + interval)
    }
}

/// Where the telling of one user's missed-call count stands, while its interval runs.
struct MissedCallNotice {
    /// The doublings of the interval at most: 16 times the base.
    static let longestStreak = 4
    /// The count last pushed.
    var told: MissedCalls?
    /// A newer count held back until the interval ends.
    var pending: MissedCalls?
    /// The end of the interval.
    var timer: TimerID?
    /// How many intervals in a row ended with a count held back: the interval is
    /// `missedCallsInterval << streak`.
    var streak = 0
}
