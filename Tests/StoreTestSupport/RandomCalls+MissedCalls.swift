import CallGateCore
import CallGateProtocol
import Testing

/// Missed calls in the differential tests: a store under test marks calls seen as the in-memory
/// reference does, and ends with the same counts and the same unseen calls.
extension RandomCalls {
    /// Now and then marks a random user's calls seen, all or up to a random session (one that may
    /// not be in their log), in both stores; expects the same answers.
    public mutating func markSomeCallsSeen(
        in store: any CallLogStore, as reference: InMemoryCallLogStore, maxID: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard chance(0.3) else { return }
        let uid = pick(Self.users)
        let through = chance(0.5) ? "s\(Int.random(in: 0..<45, using: &rng))" : nil
        let at = Int64.random(in: 1...1_000_000, using: &rng)
        #expect(
            try store.markCallsSeen(of: uid, through: through, at: at)
                == reference.markCallsSeen(of: uid, through: through, at: at),
            "\(uid) through \(through ?? "now")", sourceLocation: sourceLocation)
    }

    /// Expects `store` to hold every user's missed calls as `reference` does: the counts, and
    /// which of the calls up to `maxID` are unseen.
    public static func expectSameMissedCalls(
        in store: any CallLogStore, as reference: InMemoryCallLogStore, maxID: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ids = Array(1...maxID)
        var unseen = 0
        for uid in users {
            #expect(try store.missedCalls(of: uid) == reference.missedCalls(of: uid), "\(uid)", sourceLocation: sourceLocation)
            let calls = try store.unseenMissedCalls(of: uid, among: ids)
            #expect(calls == (try reference.unseenMissedCalls(of: uid, among: ids)), "\(uid)", sourceLocation: sourceLocation)
            unseen += calls.count
        }
        #expect(unseen > 0, "the random calls leave some missed calls unseen", sourceLocation: sourceLocation)
        let asked = users + ["stranger", users[0]]
        let counts = try store.missedCalls(of: asked)
        #expect(counts == (try reference.missedCalls(of: asked)), "one read for many users", sourceLocation: sourceLocation)
        #expect(counts.count == users.count + 1, sourceLocation: sourceLocation)
        #expect(counts["stranger"] == MissedCalls(unseen: 0, revision: 0), sourceLocation: sourceLocation)
    }
}
