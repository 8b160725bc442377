import CallGateCore
import StoreTestSupport
import CallGateProtocol
import Foundation
import GRDB
import TestSupport
import Testing

@testable import CallGateStoreSQLite

/// Participants as one JSON column of the call's row: every field kept, any text survives, a
/// group ring is one row plus its member rows once, and the member rows follow the
/// participants across commits, rollbacks and reopens.
struct ParticipantTests {
    @Test func everyFieldOfAParticipantIsKept() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .ongoing)
            call.participants[1] = CallLogParticipantRecord(
                uid: "bob", name: "Bob", avatar: "https://a/bob.png", state: .declined, joinedAt: 10, leftAt: 20,
                closedSeconds: 7, stayStartedAt: 15, heldSeconds: 3, holdStartedAt: 18, heldAway: true)
            try store.apply([.call(call)])
            #expect(try store.openCalls() == [call])
        }
    }

    /// Fails when `CallLogParticipantRecord` gains or loses a stored property: then
    /// `ParticipantsJSON` needs the new key, or the store would drop the field without a word.
    @Test func theParticipantsJSONHasAKeyForEveryField() throws {
        let fields = Mirror(reflecting: TestCalls.participant("x")).children.map(\.label)
        #expect(fields == [
            "uid", "name", "avatar", "state", "joinedAt", "leftAt", "closedSeconds", "stayStartedAt", "heldSeconds",
            "holdStartedAt", "heldAway",
        ])
        let full = CallLogParticipantRecord(
            uid: "u", name: "n", avatar: "a", state: .joined, joinedAt: 1, leftAt: 2, closedSeconds: 3, stayStartedAt: 4,
            heldSeconds: 5, holdStartedAt: 6, heldAway: true)
        let json = ParticipantsJSON.encode([full, TestCalls.participant("y", .missed)])
        #expect(try JSONDecoder().decode([CallLogParticipantRecord].self, from: Data(json.utf8)) == [full, TestCalls.participant("y", .missed)])
    }

    /// Quotes, backslashes, every control character but U+0000 (see `ParticipantsJSON`),
    /// non-ASCII text, emoji and extreme numbers come back as they went in, read by SQLite and
    /// by Foundation alike.
    @Test func anyTextAndNumberSurvivesTheJSON() throws {
        var generator = SplitMix64(seed: 7)
        let alphabet: [Character] = ["\"", "\\", "/", "a", "é", "漢", "👩‍👩‍👧", "\u{2028}", "\u{7F}", "\u{FFFD}", " "]
            + (1..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }
        let participants = (0..<200).map { index in
            let text = String((0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            return CallLogParticipantRecord(
                uid: "u\(index)\(text)", name: text, avatar: index % 3 == 0 ? nil : text,
                state: CallLogParticipantState.allCases[index % CallLogParticipantState.allCases.count],
                joinedAt: index % 2 == 0 ? Int64.max : nil, leftAt: index % 5 == 0 ? Int64.min : -1,
                closedSeconds: Int64(index), stayStartedAt: index % 7 == 0 ? 0 : nil,
                heldSeconds: index % 4 == 0 ? Int64(index) : nil, holdStartedAt: index % 9 == 0 ? Int64.max : nil)
        }
        let json = ParticipantsJSON.encode(participants)
        #expect(try JSONDecoder().decode([CallLogParticipantRecord].self, from: Data(json.utf8)) == participants)
        try withStore { store, _ in
            let decoded = try store.pool.read { try ParticipantsJSON.decode(json, callID: 1, in: $0) }
            #expect(decoded == participants)
        }
    }

    @Test func aParticipantThatIsNotOneIsAReadErrorNotACrash() throws {
        try withStore { store, _ in
            for json in [#"[{"uid":"a","name":"b","state":"dancing"}]"#, #"[{"name":"b","state":"left"}]"#, #"[1]"#] {
                #expect(throws: SQLiteStoreError.self) {
                    try store.pool.read { try ParticipantsJSON.decode(json, callID: 1, in: $0) }
                }
            }
        }
    }

    /// The cost the layout exists for: a 100-member group ring is one `calls` row and its 100
    /// member rows; the cancel that ends it rewrites the one row and no member row.
    @Test func aGroupRingIsOneRowAndItsMemberRowsOnce() throws {
        try withStore { store, _ in
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE row_writes (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL);
                    INSERT INTO row_writes VALUES ('calls', 0), ('call_members', 0);
                    CREATE TRIGGER calls_inserted AFTER INSERT ON calls BEGIN UPDATE row_writes SET n = n + 1 WHERE tbl = 'calls'; END;
                    CREATE TRIGGER calls_updated AFTER UPDATE ON calls BEGIN UPDATE row_writes SET n = n + 1 WHERE tbl = 'calls'; END;
                    CREATE TRIGGER members_inserted AFTER INSERT ON call_members BEGIN UPDATE row_writes SET n = n + 1 WHERE tbl = 'call_members'; END;
                    CREATE TRIGGER members_deleted AFTER DELETE ON call_members BEGIN UPDATE row_writes SET n = n + 1 WHERE tbl = 'call_members'; END;
                    """)
            }
            func writes() throws -> [String: Int] {
                try store.pool.read { db in
                    Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT tbl, n FROM row_writes").map { ($0[0], $0[1]) })
                }
            }
            var call = TestCalls.group(1, from: "alice", guid: "g", members: (1...99).map { "m\($0)" }, status: .initiated)
            try store.apply([.call(call)])
            #expect(try writes() == ["calls": 1, "call_members": 100])
            call.callStatus = .cancelled
            call.endedAt = 300
            try store.apply([.call(call)])
            #expect(try writes() == ["calls": 2, "call_members": 100])
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "m99") == [call])
        }
    }

    @Test func anOpenCallIsDiffedAgainstWhatItsLastCommitWroteAndAFinishedOneIsForgotten() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try store.apply([.call(call)])
            #expect(store.committedMembers.uids(of: 1) == ["alice", "bob", "carol"])
            call.callStatus = .ongoing
            call.participants.removeLast()
            call.participants.append(TestCalls.participant("dave"))
            try store.apply([.call(call)])
            #expect(store.committedMembers.uids(of: 1) == ["alice", "bob", "dave"])
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "carol").isEmpty)
            call.callStatus = .ended
            try store.apply([.call(call)])
            #expect(store.committedMembers.count == 0)
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "dave") == [call])
        }
    }

    /// A batch whose commit fails must not leave its uids behind as "committed": the next save
    /// would then skip member rows the database never got. The failure comes at COMMIT (a
    /// deferred foreign key), after every statement of the batch ran.
    @Test func aBatchWhoseCommitFailsLeavesTheCommittedMembersAsTheDatabaseHasThem() throws {
        try withStore { store, _ in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try store.apply([.call(call)])
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE parent (id INTEGER PRIMARY KEY);
                    CREATE TABLE child (parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    CREATE TRIGGER fail_at_commit AFTER UPDATE ON calls
                    BEGIN INSERT INTO child VALUES (42); END;
                    """)
            }
            var rolledBack = call
            rolledBack.participants.append(TestCalls.participant("dave"))
            #expect(throws: SQLiteStoreError.self) { try store.apply([.call(rolledBack)]) }
            #expect(store.committedMembers.uids(of: 1) == ["alice", "bob", "carol"])
            try store.pool.write { try $0.execute(sql: "DROP TRIGGER fail_at_commit") }
            call.participants.append(TestCalls.participant("erin"))
            try store.apply([.call(call)])
            #expect(try store.openCalls() == [call])
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "dave").isEmpty)
            #expect(try store.calls(sessionId: call.sessionId, visibleTo: "erin") == [call])
        }
    }

    @Test func aReopenedStoreReadsTheMembersOfOpenCallsFromTheirRows() throws {
        try withDatabasePath { path in
            var call = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .initiated)
            try SQLiteCallLogStore(path: path, durability: .processCrash).apply([.call(call)])
            let reopened = try SQLiteCallLogStore(path: path, durability: .processCrash)
            #expect(reopened.committedMembers.count == 0)
            call.callStatus = .ongoing
            call.participants.remove(at: 1)
            call.participants.append(TestCalls.participant("dave"))
            try reopened.apply([.call(call)])
            #expect(try reopened.openCalls() == [call])
            #expect(try reopened.calls(sessionId: call.sessionId, visibleTo: "bob").isEmpty)
            #expect(try reopened.calls(sessionId: call.sessionId, visibleTo: "dave") == [call])
        }
    }

    /// A file written by v1 (participants as rows of `call_participants`) opens with every
    /// participant in order, and its calls save and read as before; a participant in a state
    /// this version does not know fails the reads of its own call only, as in v1.
    @Test func aVersionOneFileMovesItsParticipantsIntoTheCallRows() throws {
        try withDatabasePath { path in
            let ended = TestCalls.group(1, from: "alice", guid: "g", members: ["bob", "carol"], status: .ended)
            var open = TestCalls.meeting(2, session: "m", members: ["carol", "dave"], status: .ongoing)
            open.participants[1] = CallLogParticipantRecord(
                uid: "dave", name: "Dave", avatar: "https://a/d.png", state: .joined, joinedAt: 5, leftAt: 9,
                closedSeconds: 4, stayStartedAt: nil)
            let queue = try DatabaseQueue(path: path)
            try CallLogSchema.migrator.migrate(queue, upTo: "v1: calls, participants, members, recording URLs, groups, write probe")
            try queue.write { db in
                for record in [ended, open] {
                    var rest = record
                    rest.participants = []
                    try db.execute(
                        sql: """
                            INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, receiver_type,
                                               receiver_id, initiated_at, started_at, ended_at, has_recording, record)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                            """,
                        arguments: [
                            record.id, record.sessionId, record.callCategory.rawValue, record.callType.rawValue,
                            record.callStatus.rawValue, record.initiator.uid, record.groupID.map { _ in "group" },
                            record.groupID, record.initiatedAt, record.startedAt, record.endedAt,
                            String(decoding: try JSONEncoder().encode(rest), as: UTF8.self),
                        ])
                    for (position, participant) in record.participants.enumerated().reversed() {
                        try db.execute(
                            sql: """
                                INSERT INTO call_participants (call_id, position, uid, name, avatar, state, joined_at,
                                                               left_at, closed_seconds, stay_started_at)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                                """,
                            arguments: [
                                record.id, position, participant.uid, participant.name, participant.avatar,
                                participant.state.rawValue, participant.joinedAt, participant.leftAt,
                                participant.closedSeconds, participant.stayStartedAt,
                            ])
                        try db.execute(sql: "INSERT OR IGNORE INTO call_members (uid, call_id) VALUES (?, ?)", arguments: [participant.uid, record.id])
                    }
                }
            }
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, initiated_at,
                                       has_recording, record)
                    VALUES (3, 'odd', 'meet', 'video', 'ended', 'zed', 1, 0, '{}');
                    INSERT INTO call_participants (call_id, position, uid, name, state, closed_seconds)
                    VALUES (3, 0, 'zed', 'Zed', 'dancing', 0);
                    INSERT INTO call_members (uid, call_id) VALUES ('zed', 3);
                    """)
            }
            try queue.close()
            let store = try SQLiteCallLogStore(path: path, durability: .processCrash)
            #expect(throws: SQLiteStoreError.self) { try store.calls(sessionId: "odd", visibleTo: "zed") }
            #expect(try store.openCalls() == [open])
            #expect(try store.calls(sessionId: "s1", visibleTo: "carol") == [ended])
            #expect(try store.pool.read { try $0.tableExists("call_participants") } == false)
            open.callStatus = .ended
            open.participants.append(TestCalls.participant("erin"))
            try store.apply([.call(open)])
            #expect(try store.calls(sessionId: "m", visibleTo: "erin") == [open])
        }
    }
}
