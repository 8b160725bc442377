import CallGateProtocol

/// The missed calls of an `InMemoryCallLogStore`: per user, each missed call with when it was
/// seen, and the count of those not seen. Inside the store's lock.
struct InMemoryMissedCalls {
    /// uid -> call id -> when a device marked it seen (Unix ms); nil while unseen.
    var calls: [String: [Int64: Int64?]] = [:]
    /// uid -> the count and its revision.
    var counts: [String: MissedCalls] = [:]

    /// Notes the calls `record` makes missed, and drops the call as a missed call of those its
    /// earlier save (`old`) had as participants and it has not (a call outside a user's log is
    /// not theirs to see); returns the users whose count it changed.
    mutating func note(_ record: CallLogRecord, replacing old: CallLogRecord?) -> Set<String> {
        var changed: Set<String> = []
        for uid in record.missedUIDs where calls[uid]?[record.id] == nil {
            calls[uid, default: [:]][record.id] = .some(nil)
            counts[uid, default: MissedCalls(unseen: 0, revision: 0)].unseen += 1
            changed.insert(uid)
        }
        let now = Set(record.participants.map(\.uid))
        for participant in old?.participants ?? [] where !now.contains(participant.uid) {
            guard let seenAt = calls[participant.uid]?.removeValue(forKey: record.id), seenAt == nil else { continue }
            counts[participant.uid]?.unseen -= 1
            changed.insert(participant.uid)
        }
        return changed
    }

    /// Raises the revision of each user of `uids` once (one transaction); returns their counts.
    mutating func revise(_ uids: Set<String>) -> [String: MissedCalls] {
        var revised: [String: MissedCalls] = [:]
        for uid in uids {
            counts[uid, default: MissedCalls(unseen: 0, revision: 0)].revision += 1
            revised[uid] = counts[uid]
        }
        return revised
    }
}

extension InMemoryCallLogStore {
    public func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls] {
        state.withLock { state in
            var counts: [String: MissedCalls] = [:]
            for uid in uids {
                counts[uid] = state.missed.counts[uid] ?? MissedCalls(unseen: 0, revision: 0)
            }
            return counts
        }
    }

    public func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        state.withLock { state in
            var limit = Int64.max
            if let sessionId {
                guard let last = state.calls.values.filter({ $0.sessionId == sessionId && $0.involves(uid) }).map(\.id).max()
                else { return nil }
                limit = last
            }
            var marked = 0
            for (id, seenAt) in state.missed.calls[uid] ?? [:] where seenAt == nil && id <= limit {
                state.missed.calls[uid]?[id] = .some(at)
                marked += 1
            }
            guard marked > 0 else {
                return SeenMark(count: state.missed.counts[uid] ?? MissedCalls(unseen: 0, revision: 0), marked: 0)
            }
            state.missed.counts[uid]?.unseen -= marked
            return state.missed.revise([uid])[uid].map { SeenMark(count: $0, marked: marked) }
        }
    }

    public func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        state.withLock { state in
            let calls = state.missed.calls[uid] ?? [:]
            return Set(ids.filter { id in calls[id].map { $0 == nil } ?? false })
        }
    }
}
