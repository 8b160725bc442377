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
}
