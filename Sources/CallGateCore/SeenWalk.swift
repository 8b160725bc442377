import CallGateProtocol

/// One `markCallsSeen` as the SQL stores run it, a transaction per step.
///
/// A missed call's row is keyed by call (a cancelled group ring writes its members' rows on the
/// table's last pages), so a user's missed calls are found through their calls (`call_members`,
/// by call id). Each user's count row keeps `unseen_from`: no unseen missed call of theirs has a
/// lower call id (nil when none is unseen; lowered by every new one). A step reads the count row,
/// walks at most `callsPerTransaction` of the user's calls from there up to `limit`, marks their
/// unseen missed rows seen and writes the count row back: a user who left thousands of calls
/// unseen has them marked in several short transactions, and the store's writer never waits
/// behind one long one. Each step that marks some raises the revision, as any transaction does.
/// Pure; the store's thread.
public struct SeenWalk: Hashable, Sendable {
    /// The most calls one step walks.
    public static let callsPerTransaction = 512

    /// The last call id to mark: the newest call of the session named, else every call.
    public let limit: Int64
    /// The call id the next step walks from, at least: past what the walk covered.
    private var cursor: Int64 = .min
    /// How many missed calls the steps marked seen.
    public private(set) var marked = 0
    /// The count as the last step left it.
    public private(set) var count = MissedCalls(unseen: 0, revision: 0)
    /// Whether the walk is over: it reached the limit, or nothing is left unseen.
    public private(set) var isDone = false

    /// A walk up to call `limit`.
    public init(limit: Int64) {
        self.limit = limit
    }

    /// What the walk did: the count after it and how many it marked.
    public var mark: SeenMark {
        SeenMark(count: count, marked: marked)
    }

    /// Starts a step on the count row its transaction read (`count`, `unseenFrom`; zero and nil
    /// for a user with no row): the call id to walk from, or nil when the walk is over (nothing
    /// unseen, or nothing left up to the limit) and the step writes nothing.
    public mutating func begin(count: MissedCalls, unseenFrom: Int64?) -> Int64? {
        self.count = count
        guard count.unseen > 0 else {
            isDone = true
            return nil
        }
        // A count without its start (not written by this version) is walked from the first call.
        let from = max(unseenFrom ?? .min, cursor)
        guard from <= limit else {
            isDone = true
            return nil
        }
        return from
    }

    /// Ends the step that began at `from` (its count row read as `count`, `unseenFrom`), walked
    /// `walked` calls up to call `last` and marked `marked` missed calls seen: the count row to
    /// write, with its revision raised when the count changed.
    public mutating func end(
        from: Int64, walked: Int, last: Int64?, marked: Int, count: MissedCalls, unseenFrom: Int64?
    ) -> (count: MissedCalls, unseenFrom: Int64?) {
        let reachedLimit = walked < Self.callsPerTransaction
        let covered = reachedLimit ? limit : (last ?? limit)
        // Every call of the user from `from` to `covered` was walked: when the walk began at the
        // user's start, none of theirs up to `covered` is unseen now, and past the last call none
        // at all (a count that said otherwise is set right).
        let fromStart = from == (unseenFrom ?? .min)
        var after = count
        after.unseen = fromStart && covered == .max ? 0 : max(0, count.unseen - marked)
        if after.unseen != count.unseen {
            after.revision += 1
        }
        self.marked += marked
        self.count = after
        isDone = reachedLimit || after.unseen == 0 || covered == .max
        cursor = covered == .max ? .max : covered + 1
        guard after.unseen > 0 else { return (after, nil) }
        return (after, fromStart ? covered + 1 : unseenFrom)
    }
}
