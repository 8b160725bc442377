import CallGateCore
import GRDB
import Testing

@testable import CallGateStoreSQLite

/// Participants as rows: every field kept, and a re-save writes only those that changed.
struct ParticipantTests {
    @Test func everyFieldOfAParticipantIsKept() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .ongoing)
            call.participants[1] = CallLogParticipantRecord(
                uid: "bob", name: "Bob", avatar: "https://a/bob.png", state: .declined, joinedAt: 10, leftAt: 20,
                closedSeconds: 7, stayStartedAt: 15)
            try store.apply([.call(call)])
            #expect(try store.openCalls() == [call])
        }
    }

    /// Fails when `CallLogParticipantRecord` gains or loses a stored property: then
    /// `call_participants` needs a migration and `ParticipantTable` the new column, or the
    /// store would drop the field without a word.
    @Test func theParticipantTableHasAColumnForEveryField() {
        let fields = Mirror(reflecting: TestCalls.participant("x")).children.map(\.label)
        #expect(fields == ["uid", "name", "avatar", "state", "joinedAt", "leftAt", "closedSeconds", "stayStartedAt"])
    }

    @Test func aResaveWritesOnlyTheParticipantsThatChanged() throws {
        try withStore { store, _ in
            let members = (1...99).map { "m\($0)" }
            var call = TestCalls.group(1, from: "alice", guid: "g", members: members, status: .initiated)
            try store.apply([.call(call)])
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE participant_writes (n INTEGER NOT NULL);
                    INSERT INTO participant_writes VALUES (0);
                    CREATE TRIGGER count_updates AFTER UPDATE ON call_participants
                    BEGIN UPDATE participant_writes SET n = n + 1; END;
                    CREATE TRIGGER count_inserts AFTER INSERT ON call_participants
                    BEGIN UPDATE participant_writes SET n = n + 1; END;
                    """)
            }
            call.callStatus = .ongoing
            call.participants[40].state = .joined
            call.participants.append(TestCalls.participant("late"))
            try store.apply([.call(call)])
            let writes = try store.pool.read { try Int.fetchOne($0, sql: "SELECT n FROM participant_writes") }
            #expect(writes == 2)
            #expect(try store.openCalls() == [call])
        }
    }

    @Test func anOpenCallIsDiffedAgainstWhatItsLastCommitWroteAndAFinishedOneIsForgotten() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try store.apply([.call(call)])
            #expect(store.committedParticipants.participants(of: 1) == call.participants)
            call.callStatus = .ongoing
            call.participants[1].state = .joined
            try store.apply([.call(call)])
            #expect(store.committedParticipants.participants(of: 1) == call.participants)
            call.callStatus = .ended
            try store.apply([.call(call)])
            #expect(store.committedParticipants.count == 0)
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "carol") == [call])
        }
    }

    /// A batch whose commit fails must not leave its participants behind as "committed": the
    /// next save would then skip rows the database never got. The failure comes at COMMIT (a
    /// deferred foreign key), after every statement of the batch ran.
    @Test func aBatchWhoseCommitFailsLeavesTheCommittedParticipantsAsTheDatabaseHasThem() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try store.apply([.call(call)])
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE parent (id INTEGER PRIMARY KEY);
                    CREATE TABLE child (parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    CREATE TRIGGER fail_at_commit AFTER UPDATE ON call_participants
                    BEGIN INSERT INTO child VALUES (42); END;
                    """)
            }
            var rolledBack = call
            rolledBack.callStatus = .ongoing
            rolledBack.participants[1].state = .joined
            #expect(throws: SQLiteStoreError.self) { try store.apply([.call(rolledBack)]) }
            #expect(store.committedParticipants.participants(of: 1) == call.participants)
            try store.pool.write { try $0.execute(sql: "DROP TRIGGER fail_at_commit") }
            call.callStatus = .ongoing
            call.participants[2].state = .joined
            try store.apply([.call(call)])
            #expect(try store.openCalls() == [call])
        }
    }

    @Test func aReopenedStoreReadsTheParticipantsOfOpenCallsFromTheirRows() throws {
        try withDatabasePath { path in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try SQLiteCallLogStore(path: path, durability: .processCrash).apply([.call(call)])
            let reopened = try SQLiteCallLogStore(path: path, durability: .processCrash)
            #expect(reopened.committedParticipants.count == 0)
            call.callStatus = .ongoing
            call.participants[1].state = .joined
            try reopened.apply([.call(call)])
            #expect(try reopened.openCalls() == [call])
        }
    }
}
