import CallGateCore
import CallGateProtocol
import GRDB
import StoreTestSupport
import Testing

@testable import CallGateStoreSQLite

/// The missed-call ledger keyed by call (schema v7): marking calls seen walks a user's calls in
/// steps, a file written by v6 keeps its missed calls and unseen counts, and each query runs on
/// a key.
struct MissedCallLedgerTests {
    @Test func marksAcrossMoreCallsThanOneStepWalks() throws {
        try withStore { store, _ in try SeenWalkScenario.run(on: store) }
    }

    @Test func theReferenceStoreAnswersTheScenarioToo() throws {
        try SeenWalkScenario.run(on: InMemoryCallLogStore())
    }

    @Test func aVersion6FileKeepsItsMissedCalls() throws {
        try withDatabasePath { path in
            let records = [
                TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .cancelled),
                TestCalls.direct(2, from: "alice", to: "bob", status: .unanswered),
                TestCalls.direct(3, from: "carol", to: "bob", status: .unanswered),
                TestCalls.direct(4, from: "bob", to: "carol", status: .unanswered),
            ]
            let uids = ["alice", "bob", "carol"]
            var counts: [String: MissedCalls] = [:]
            do {
                let store = try SQLiteCallLogStore(path: path, durability: .processCrash)
                try store.apply(TestCalls.writes(records))
                _ = try store.markCallsSeen(of: "bob", through: "s2", at: 900)
                counts = try store.missedCalls(of: uids)
                // The file as v6 left it: rows keyed by user, every count written, without its start.
                try store.pool.writeWithoutTransaction { db in
                    try db.execute(sql: """
                        CREATE TABLE v6 (uid TEXT NOT NULL, call_id INTEGER NOT NULL REFERENCES calls(id), seen_at INTEGER,
                            PRIMARY KEY (uid, call_id)) WITHOUT ROWID, STRICT;
                        INSERT INTO v6 SELECT uid, call_id, seen_at FROM missed_calls;
                        DROP TABLE missed_calls;
                        ALTER TABLE v6 RENAME TO missed_calls;
                        DROP TABLE missed_count_state;
                        DELETE FROM missed_call_counts;
                        ALTER TABLE missed_call_counts DROP COLUMN unseen_from;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v7:%';
                        """)
                    for (uid, count) in counts where count.revision > 0 {
                        try db.execute(
                            sql: "INSERT INTO missed_call_counts (uid, unseen, revision) VALUES (?, ?, ?)",
                            arguments: [uid, count.unseen, count.revision])
                    }
                    // Dave was dropped from call 2 after he missed it, which v6 kept counting.
                    try db.execute(sql: """
                        INSERT INTO missed_calls (uid, call_id) VALUES ('dave', 2);
                        INSERT INTO missed_call_counts (uid, unseen, revision) VALUES ('dave', 1, 1);
                        """)
                }
            }
            let store = try SQLiteCallLogStore(path: path, durability: .processCrash)
            #expect(store.migrationsApplied.count == 1 && store.migrationsApplied[0].hasPrefix("v7:"))
            #expect(try store.missedCalls(of: uids) == counts)
            #expect(counts["bob"]?.unseen == 1 && counts["carol"]?.unseen == 2)
            #expect(try store.unseenMissedCalls(of: "bob", among: [1, 2, 3, 4]) == [3])
            #expect(try store.unseenMissedCalls(of: "carol", among: [1, 2, 3, 4]) == [1, 4])
            let unseenFrom = try store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT uid, unseen_from FROM missed_call_counts ORDER BY uid")
                    .map { "\($0["uid"] as String)=\(($0["unseen_from"] as Int64?).map(String.init) ?? "nil")" }
            }
            #expect(unseenFrom == ["bob=3", "carol=1", "dave=nil"])
            #expect(try store.missedCalls(of: "dave") == MissedCalls(unseen: 0, revision: 2))
            #expect(try store.unseenMissedCalls(of: "dave", among: [2]).isEmpty)
            let seen = try #require(try store.markCallsSeen(of: "carol", through: nil, at: 1_000))
            #expect(seen.marked == 2 && seen.count.unseen == 0)
        }
    }

    @Test func theLedgerQueriesRunOnKeys() throws {
        try withStore { store, _ in
            try store.pool.read { db in
                let plans = try [
                    """
                    SELECT call_id FROM missed_calls
                    WHERE call_id IN (SELECT value FROM json_each(?)) AND uid = ? AND seen_at IS NULL
                    """,
                    "SELECT call_id FROM call_members WHERE uid = ? AND call_id BETWEEN ? AND ? ORDER BY call_id LIMIT ?",
                    "SELECT unseen, revision, unseen_from FROM missed_call_counts WHERE uid = ?",
                ].map { sql in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: StatementArguments(
                        Array(repeating: nil as String?, count: sql.filter { $0 == "?" }.count)))
                        .map { $0["detail"] as String }.joined(separator: "\n")
                }
                for plan in plans {
                    #expect(plan.contains("PRIMARY KEY") && !plan.contains("TEMP B-TREE"), "\(plan)")
                    #expect(!plan.split(separator: "\n").contains { $0.hasPrefix("SCAN") && !$0.contains("json_each") }, "\(plan)")
                }
            }
        }
    }
}
