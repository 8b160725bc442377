import CallGateCore
import StoreTestSupport
import TestSupport
import Testing

@testable import CallGateStoreSQLite

/// The SQLite store answers exactly as the in-memory reference store for the same writes:
/// random calls, re-saves, groups, recording URLs and missed calls marked seen, then many random
/// queries.
struct DifferentialTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func sqliteAnswersAsTheInMemoryStore(seed: UInt64) throws {
        try withStore { sqlite, _ in
            let reference = InMemoryCallLogStore()
            var random = RandomCalls(rng: SplitMix64(seed: seed))
            var saved: [CallLogRecord] = []
            var nextID: Int64 = 1
            for _ in 0..<80 {
                let batch = random.batch(saved: &saved, nextID: &nextID, maxCalls: 12)
                #expect(try sqlite.apply(batch) == reference.apply(batch))
                try random.markSomeCallsSeen(in: sqlite, as: reference, maxID: nextID)
                for _ in 0..<2 {
                    let session = "s\(Int.random(in: 0..<40, using: &random.rng))"
                    let rid = "\(session)-r\(Int.random(in: 1...3, using: &random.rng))"
                    let url = "https://files/\(nextID)/\(rid)"
                    #expect(try sqlite.attachRecordingURL(url, sessionId: session, rid: rid, startedAt: nil)
                        == reference.attachRecordingURL(url, sessionId: session, rid: rid, startedAt: nil))
                }
            }
            #expect(saved.count > 300)
            #expect(try sqlite.lastCallID() == reference.lastCallID())
            #expect(try sqlite.openCalls() == reference.openCalls())
            #expect(try sqlite.liveCalls() == reference.liveCalls())
            #expect(try sqlite.liveCalls().map(\.id) == sqlite.openCalls().map(\.id))
            #expect(try sqlite.groups() == reference.groups())
            var nonEmpty = 0
            for _ in 0..<600 {
                let query = random.query(maxID: nextID)
                let page = try sqlite.page(query)
                #expect(page == (try reference.page(query)), "\(query)")
                nonEmpty += page.records.isEmpty ? 0 : 1
            }
            #expect(nonEmpty > 200)
            for session in 0..<40 {
                for viewer in RandomCalls.users {
                    #expect(try sqlite.calls(sessionId: "s\(session)", visibleTo: viewer)
                        == reference.calls(sessionId: "s\(session)", visibleTo: viewer))
                }
            }
            try RandomCalls.expectSameMissedCalls(in: sqlite, as: reference, maxID: nextID)
        }
    }
}
