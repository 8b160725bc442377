import CallGateCore
import CallGateProtocol
import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import CallGateStoreSQLite

/// The unseen counts held between writes (`MissedCountCache`): readers see them at once, they
/// are written once the interval passed or the transactions allowed ran out, and a process that
/// dies holding some leaves a file whose next opening counts them again, with revisions above
/// any it told.
struct MissedCountCacheTests {
    /// A store at `path` that writes its held counts every `interval` and every 20 transactions.
    private func openStore(at path: String, interval: Duration = .seconds(3_600)) throws -> SQLiteCallLogStore {
        try SQLiteCallLogStore(
            path: path, durability: .processCrash, busyTimeout: 5,
            missedCounts: MissedCountCache(interval: interval, maxTransactions: 20))
    }

    /// The counts as the table has them, by uid.
    private func written(_ store: SQLiteCallLogStore) throws -> [String: MissedCalls] {
        try store.pool.read { db in
            var counts: [String: MissedCalls] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT uid, unseen, revision FROM missed_call_counts") {
                counts[row[0]] = MissedCalls(unseen: row[1], revision: row[2])
            }
            return counts
        }
    }

    /// The table's `recount_from`.
    private func recountFrom(_ store: SQLiteCallLogStore) throws -> Int64? {
        try store.pool.read { try Int64.fetchOne($0, sql: "SELECT recount_from FROM missed_count_state") }
    }

    @Test func heldCountsAreReadAtOnceAndRecountedAfterACrash() throws {
        try withDatabasePath { path in
            let store = try openStore(at: path)
            let applied = try store.apply([
                .call(TestCalls.group(4, from: "alice", guid: "g", members: ["bob", "carol"], status: .cancelled)),
                .call(TestCalls.direct(5, from: "alice", to: "bob", status: .unanswered)),
            ])
            #expect(applied.missedCalls == ["bob": MissedCalls(unseen: 2, revision: 1), "carol": MissedCalls(unseen: 1, revision: 1)])
            #expect(try written(store).isEmpty)
            #expect(try recountFrom(store) == 4)
            #expect(try store.missedCalls(of: ["bob", "carol", "dave"]) == [
                "bob": MissedCalls(unseen: 2, revision: 1), "carol": MissedCalls(unseen: 1, revision: 1),
                "dave": MissedCalls(unseen: 0, revision: 0),
            ])
            // A mark writes its user's count at once.
            let seen = try #require(try store.markCallsSeen(of: "bob", through: "s4", at: 900))
            #expect(seen == SeenMark(count: MissedCalls(unseen: 1, revision: 2), marked: 1))
            #expect(try written(store) == ["bob": MissedCalls(unseen: 1, revision: 2)])
            #expect(try store.apply([.call(TestCalls.direct(6, from: "bob", to: "carol", status: .unanswered))]).missedCalls
                == ["carol": MissedCalls(unseen: 2, revision: 2)])

            // The process dies holding carol's count: the next one counts it again from the calls.
            let reopened = try openStore(at: path)
            let headroom = reopened.missedCounts.revisionHeadroom
            #expect(headroom == 21)
            #expect(try written(reopened) == [
                "bob": MissedCalls(unseen: 1, revision: 2 + headroom), "carol": MissedCalls(unseen: 2, revision: headroom),
            ])
            #expect(try recountFrom(reopened) == nil)
            #expect(try reopened.unseenMissedCalls(of: "carol", among: [4, 5, 6]) == [4, 6])
            let all = try #require(try reopened.markCallsSeen(of: "carol", through: nil, at: 1_000))
            #expect(all == SeenMark(count: MissedCalls(unseen: 0, revision: headroom + 1), marked: 2))
        }
    }

    @Test func countsAreWrittenOnceTheTransactionsAllowedRunOut() throws {
        try withDatabasePath { path in
            let store = try openStore(at: path)
            for id in 1...19 as ClosedRange<Int64> {
                try store.apply([.call(TestCalls.direct(id, from: "alice", to: "bob", status: .unanswered))])
            }
            #expect(try written(store).isEmpty)
            try store.apply([.call(TestCalls.direct(20, from: "alice", to: "bob", status: .unanswered))])
            #expect(try written(store) == ["bob": MissedCalls(unseen: 20, revision: 20)])
            #expect(try recountFrom(store) == nil)
        }
    }

    @Test func countsHeldPastTheIntervalGoWithTheNextBatch() throws {
        try withDatabasePath { path in
            let store = try openStore(at: path, interval: .milliseconds(200))
            try store.apply([.call(TestCalls.direct(7, from: "alice", to: "carol", status: .unanswered))])
            Thread.sleep(forTimeInterval: 0.3)
            // Whether or not the batch changes a count.
            try store.apply([.putGroup(GroupRecord(guid: "g", name: "G", members: ["alice"]))])
            #expect(try written(store) == ["carol": MissedCalls(unseen: 1, revision: 1)])
            #expect(try recountFrom(store) == nil)
        }
    }

    @Test func aCleanStopWritesWhatIsHeldAndTheNextStartRecountsNothing() throws {
        try withDatabasePath { path in
            let store = try openStore(at: path)
            try store.apply([.call(TestCalls.direct(3, from: "alice", to: "bob", status: .unanswered))])
            #expect(try written(store).isEmpty)
            try store.flush()
            #expect(try written(store) == ["bob": MissedCalls(unseen: 1, revision: 1)])
            #expect(try recountFrom(store) == nil)
            #expect(try openStore(at: path).missedCalls(of: "bob") == MissedCalls(unseen: 1, revision: 1))
        }
    }

    @Test func droppingAnUnseenMissedCallWritesTheCountsAtOnce() throws {
        try withDatabasePath { path in
            let store = try openStore(at: path)
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .cancelled)
            try store.apply([.call(call)])
            call.participants.removeLast()
            #expect(try store.apply([.call(call)]).missedCalls == ["carol": MissedCalls(unseen: 0, revision: 2)])
            #expect(try written(store) == [
                "bob": MissedCalls(unseen: 1, revision: 1), "carol": MissedCalls(unseen: 0, revision: 2),
            ])
        }
    }
}
