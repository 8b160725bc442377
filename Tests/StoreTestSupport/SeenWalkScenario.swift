import CallGateCore
import CallGateProtocol
import Testing

/// Marking missed calls seen across more of a user's calls than one step walks
/// (`SeenWalk.callsPerTransaction`), on any store: the answers and the count are those of one
/// walk over the whole log, and a call missed after a mark, older than what it marked, is still
/// found by the next one.
public enum SeenWalkScenario {
    /// How many calls bob is in: more than two steps' worth.
    static let calls: Int64 = 1_300

    /// Runs the scenario on `store`, fresh.
    public static func run(on store: any CallLogStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // alice calls bob 1,300 times; bob misses every call whose id ends in 07, and call 300 is
        // still ringing him.
        var records: [CallLogRecord] = []
        for id in 1...calls {
            let missed = id % 100 == 7
            records.append(id == 300 ? ringing(300) : TestCalls.direct(id, from: "alice", to: "bob", status: missed ? .unanswered : .ended))
        }
        try store.apply(TestCalls.writes(records))
        let missed = Set(stride(from: Int64(7), through: calls, by: 100))
        let all = Array(1...calls)
        #expect(try store.missedCalls(of: "bob").unseen == 13, sourceLocation: sourceLocation)
        #expect(try store.unseenMissedCalls(of: "bob", among: all) == missed, sourceLocation: sourceLocation)

        // Through call 650: the 7 missed up to it, in two steps.
        let before = try store.missedCalls(of: "bob")
        let throughHalf = try #require(try store.markCallsSeen(of: "bob", through: "s650", at: 5_000), sourceLocation: sourceLocation)
        #expect(throughHalf.marked == 7 && throughHalf.count.unseen == 6, sourceLocation: sourceLocation)
        #expect(throughHalf.count.revision > before.revision, sourceLocation: sourceLocation)
        #expect(try store.missedCalls(of: "bob") == throughHalf.count, sourceLocation: sourceLocation)
        #expect(try store.unseenMissedCalls(of: "bob", among: all) == missed.filter { $0 > 650 }, sourceLocation: sourceLocation)

        // Call 300 stops ringing: missed after the mark, below where it ended.
        var rung = ringing(300)
        rung.callStatus = .unanswered
        rung.endedAt = 1_000
        rung.participants[1].state = .missed
        let noted = try store.apply([.call(rung)])
        #expect(noted.missedCalls["bob"]?.unseen == 7, sourceLocation: sourceLocation)
        #expect(try store.unseenMissedCalls(of: "bob", among: all) == missed.filter { $0 > 650 }.union([300]), sourceLocation: sourceLocation)

        // Everything: call 300 and the 6 past 650.
        let everything = try #require(try store.markCallsSeen(of: "bob", through: nil, at: 6_000), sourceLocation: sourceLocation)
        #expect(everything.marked == 7 && everything.count.unseen == 0, sourceLocation: sourceLocation)
        #expect(try store.unseenMissedCalls(of: "bob", among: all).isEmpty, sourceLocation: sourceLocation)
        #expect(try store.missedCalls(of: "bob") == everything.count, sourceLocation: sourceLocation)

        // Nothing left: the count stays as it is.
        let again = try #require(try store.markCallsSeen(of: "bob", through: nil, at: 7_000), sourceLocation: sourceLocation)
        #expect(again == SeenMark(count: everything.count, marked: 0), sourceLocation: sourceLocation)
        #expect(try store.markCallsSeen(of: "bob", through: "nope", at: 7_000) == nil, sourceLocation: sourceLocation)
        #expect(try store.missedCalls(of: "alice") == MissedCalls(unseen: 0, revision: 0), sourceLocation: sourceLocation)
    }

    /// Call `id` from alice, still ringing bob.
    static func ringing(_ id: Int64) -> CallLogRecord {
        var call = TestCalls.direct(id, from: "alice", to: "bob", status: .initiated)
        call.participants[1].state = .ringing
        return call
    }
}
