import CallGateCore
import StoreTestSupport
import CallGateProtocol
import GRDB
import Testing

@testable import CallGateStoreSQLite

/// Saving calls: one row per call however often it is saved, visibility following its
/// participants, open calls and the last id surviving a reopen.
struct SavingTests {
    /// Row counts of the calls and members tables, and the participants the calls hold.
    private func counts(_ store: SQLiteCallLogStore) throws -> (calls: Int, participants: Int, members: Int) {
        try store.pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM calls") ?? -1,
                try Int.fetchOne(db, sql: "SELECT SUM(json_array_length(participants)) FROM calls") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM call_members") ?? -1
            )
        }
    }

    @Test func savingACallTwiceKeepsOneRowWithTheLatestRecord() throws {
        try withStore { store, _ in
            let ringing = TestCalls.direct(1, from: "alice", to: "bob", status: .initiated)
            let ended = TestCalls.direct(1, from: "alice", to: "bob", status: .ended)
            try store.apply([.call(ringing), .call(ringing)])
            try store.apply([.call(ended)])
            #expect(try counts(store) == (1, 2, 2))
            #expect(try store.calls(sessionId: "s1", visibleTo: "bob") == [ended])
            #expect(try store.openCalls().isEmpty)
        }
    }

    @Test func participantsAddedOrRemovedOnResaveChangeWhoSeesTheCall() throws {
        try withStore { store, _ in
            var call = TestCalls.group(5, from: "alice", guid: "g", members: ["bob"], status: .ongoing)
            try store.apply([.call(call)])
            call.participants.append(TestCalls.participant("carol"))
            try store.apply([.call(call)])
            #expect(try store.calls(sessionId: "s5", visibleTo: "carol") == [call])
            call.participants.removeAll { $0.uid == "bob" }
            try store.apply([.call(call)])
            #expect(try store.calls(sessionId: "s5", visibleTo: "bob").isEmpty)
            #expect(try store.calls(sessionId: "s5", visibleTo: "carol") == [call])
            #expect(try counts(store) == (1, 2, 2))
        }
    }

    @Test func aDuplicatedParticipantIsOneMember() throws {
        try withStore { store, _ in
            var call = TestCalls.direct(3, from: "alice", to: "bob")
            call.participants.append(TestCalls.participant("bob", .missed))
            try store.apply([.call(call)])
            #expect(try counts(store) == (1, 3, 2))
            #expect(try store.calls(sessionId: "s3", visibleTo: "bob") == [call])
        }
    }

    @Test func openCallsAndTheLastIDSurviveAReopenOldestFirst() throws {
        try withDatabasePath { path in
            let calls = [
                TestCalls.direct(4, from: "alice", to: "bob", status: .ongoing),
                TestCalls.direct(9, from: "carol", to: "dave", status: .ended),
                TestCalls.meeting(2, session: "room", members: ["erin"], status: .ongoing),
                TestCalls.direct(6, from: "bob", to: "carol", status: .initiated),
                TestCalls.direct(8, from: "bob", to: "carol", status: .cancelled),
            ]
            do {
                try SQLiteCallLogStore(path: path).apply(TestCalls.writes(calls))
            }
            let store = try SQLiteCallLogStore(path: path)
            #expect(try store.openCalls().map(\.id) == [2, 4, 6])
            #expect(try store.lastCallID() == 9)
        }
    }

    @Test func theLastIDNeverGoesDownEvenWhenCallsAreDeleted() throws {
        try withStore { store, _ in
            try store.apply(TestCalls.writes([TestCalls.direct(41, from: "a", to: "b"), TestCalls.direct(40, from: "a", to: "b")]))
            #expect(try store.lastCallID() == 41)
            try store.pool.write { db in
                try db.execute(sql: "DELETE FROM call_members WHERE call_id = 41")
                try db.execute(sql: "DELETE FROM calls WHERE id = 41")
            }
            #expect(try store.lastCallID() == 41)
        }
    }

    @Test func aBatchAppliesInOrder() throws {
        try withStore { store, _ in
            let first = TestCalls.direct(1, from: "alice", to: "bob", status: .initiated)
            let last = TestCalls.direct(1, from: "alice", to: "bob", status: .rejected)
            let group = GroupRecord(guid: "g", name: "G", members: ["alice"])
            try store.apply([.call(first), .putGroup(group), .call(last), .deleteGroup("g"), .putGroup(group)])
            #expect(try store.calls(sessionId: "s1", visibleTo: "alice") == [last])
            #expect(try store.groups() == [group])
        }
    }

    @Test func aCallSavedSeveralTimesInOneBatchIsWrittenOnce() throws {
        try withStore { store, _ in
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE call_writes (n INTEGER NOT NULL);
                    INSERT INTO call_writes VALUES (0);
                    CREATE TRIGGER count_call_inserts AFTER INSERT ON calls BEGIN UPDATE call_writes SET n = n + 1; END;
                    CREATE TRIGGER count_call_updates AFTER UPDATE ON calls BEGIN UPDATE call_writes SET n = n + 1; END;
                    """)
            }
            let statuses: [CallStatus] = [.initiated, .ongoing, .ended]
            try store.apply(statuses.map { .call(TestCalls.direct(1, from: "alice", to: "bob", status: $0)) }
                + [.call(TestCalls.direct(2, from: "bob", to: "alice"))])
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT n FROM call_writes") } == 2)
            #expect(try store.calls(sessionId: "s1", visibleTo: "bob").map(\.callStatus) == [.ended])
        }
    }

    @Test func aFailingBatchWritesNothing() throws {
        try withStore { store, _ in
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuse_call_13 BEFORE INSERT ON calls WHEN NEW.id = 13
                    BEGIN SELECT RAISE(ABORT, 'refused'); END
                    """)
            }
            let batch = TestCalls.writes([
                TestCalls.direct(12, from: "alice", to: "bob", status: .ongoing),
                TestCalls.direct(13, from: "alice", to: "bob"),
            ])
            let error = #expect(throws: SQLiteStoreError.self) { try store.apply(batch) }
            #expect(error?.kind == .write)
            #expect(try store.lastCallID() == 0)
            #expect(try store.openCalls().isEmpty)
        }
    }
}
