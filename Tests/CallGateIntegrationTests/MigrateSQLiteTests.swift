import CallGateClient
import CallGateProtocol
import CallGateStorePostgres
import CallGateStoreSQLite
import Foundation
import Testing

/// `callgate migrate-sqlite` and `callgate migrate`, the real executable: a gateway on SQLite
/// makes a history, the copy moves it into PostgreSQL, and a gateway on PostgreSQL answers every
/// call log, group and webhook request with the same bytes, then goes on with new calls.
@Suite("Moving a store from SQLite to PostgreSQL")
struct MigrateSQLiteTests {
    /// What a user and an operator read from a gateway, as raw bodies.
    static func answers(_ gateway: TestGateway, sessions: [String]) async throws -> [String: Data] {
        var answers: [String: Data] = [:]
        for uid in ["alice", "bob", "carol"] {
            answers["calls of \(uid)"] = try await gateway.userGet("/v3.0/calls?perPage=2&page=2", as: uid).1
            answers["all calls of \(uid)"] = try await gateway.userGet("/v3.0/calls", as: uid).1
            answers["recorded calls of \(uid)"] = try await gateway.userGet("/v3.0/calls?hasRecording=1", as: uid).1
            for session in sessions {
                answers["\(session) for \(uid)"] = try await gateway.userGet("/v3.0/calls/\(session)", as: uid).1
            }
        }
        for path in ["/v1/groups/team", "/v1/webhooks", "/v1/webhooks/default/deliveries?limit=100"] {
            answers[path] = try await gateway.admin("GET", path).1
        }
        return answers
    }

    @Test func aCopiedStoreAnswersTheSameBytesAndTakesNewCalls() async throws {
        let sqlite = try await TestGateway(store: .sqlite) {
            $0.webhooks.url = "http://127.0.0.1:9/hooks"
            $0.webhooks.allowsPrivateNetworks = true
            $0.webhooks.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        }
        let alice = try await sqlite.device("alice")
        let bob = try await sqlite.device("bob")
        let carol = try await sqlite.device("carol")
        let ended = try await alice.establishCall(with: bob, uid: "bob")
        _ = try await alice.endCall(ended.sessionId)
        _ = try await bob.expectPush()
        let rejected = try await bob.initiateCall(to: "alice", callType: .video)
        _ = try await alice.expectPush()
        _ = try await alice.rejectCall(rejected.sessionId, status: .rejected)
        _ = try await bob.expectPush()
        try await sqlite.putGroup("team", members: ["alice", "bob", "carol"])
        let group = try await alice.initiateCall(to: "team", receiverType: .group)
        _ = try await bob.expectPush()
        _ = try await carol.expectPush()
        _ = try await bob.acceptCall(group.sessionId)
        _ = try await alice.expectPush()
        _ = try await carol.rejectCall(group.sessionId, status: .rejected)
        _ = try await bob.endCall(group.sessionId)
        _ = try await alice.expectPush()
        let token = try await carol.generateToken(sessionId: "standup.7")
        _ = try await carol.joinSession(callToken: token.callToken)
        _ = try await carol.startRecording("standup.7")
        _ = try await carol.stopRecording("standup.7")
        _ = try await carol.leaveSession("standup.7")
        let attached = try await sqlite.admin(
            "POST", "/v1/calls/standup.7/recordings/standup.7-r1", json: #"{"recordingUrl":"https://files.example/r1.mp4"}"#)
        #expect(attached.0 == 200)
        // Bob misses two calls and marks the first seen: the copy keeps both and the count.
        var missed: [Call] = []
        for _ in 0..<2 {
            let call = try await alice.ring("bob", ringing: [bob])
            _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
            _ = try await bob.expectPush()
            missed.append(call)
        }
        #expect(try await bob.markCallsSeen(through: missed[0].sessionId).unseen == 1)
        let ringing = try await alice.ring("carol", ringing: [carol])
        // The endpoint stops taking deliveries, so neither gateway changes them while they are compared.
        #expect(try await sqlite.admin("PATCH", "/v1/webhooks/default", json: #"{"enabled":false}"#).0 == 200)
        try await sqlite.awaitLogged(ringing.sessionId, for: "carol")
        let sessions = ([ended, rejected, group, ringing] + missed).map(\.sessionId) + ["standup.7"]
        let before = try await Self.answers(sqlite, sessions: sessions)
        sqlite.shutdown()
        // Opened once the gateway stopped: the file is one process's at a time.
        let lastCallID = try SQLiteCallLogStore(path: sqlite.database).lastCallID()

        let target = try await SharedPostgres.freshDatabase()
        let copy = try ChildProcess("callgate", ["migrate-sqlite", "--from", sqlite.database, "--to", target, "--batch-size", "2"])
        #expect(await copy.exitStatus() == 0, "\(copy.standardError)")
        #expect(copy.standardOutput.contains("  calls: 7 rows (7 read)"), "\(copy.standardOutput)")
        #expect(copy.standardOutput.contains("  missed_calls: 2 rows (2 read)"), "\(copy.standardOutput)")
        #expect(copy.standardOutput.contains("  missed_call_counts: 1 rows (1 read)"), "\(copy.standardOutput)")
        #expect(copy.standardOutput.contains("  call_members: "), "\(copy.standardOutput)")

        let postgres = try await TestGateway(store: .postgres, directory: sqlite.directory, database: target)
        defer { postgres.shutdown() }
        let after = try await Self.answers(postgres, sessions: sessions)
        for (request, body) in before.sorted(by: { $0.key < $1.key }) {
            #expect(after[request] == body, "\(request): \(String(decoding: body, as: UTF8.self)) became \(String(decoding: after[request] ?? Data(), as: UTF8.self))")
        }
        #expect(String(decoding: before["/v1/webhooks/default/deliveries?limit=100"] ?? Data(), as: UTF8.self).contains("call.initiated"))

        // The ringing call resumed from the copy; new calls get ids past the copied ones.
        let carolAgain = try await postgres.device("carol")
        let resumed = await carolAgain.nextEvent(timeout: .seconds(5))
        #expect(resumed != nil)
        let store = try await openTestStore(target)
        #expect(try store.lastCallID() == lastCallID)
        let aliceAgain = try await postgres.device("alice")
        let bobAgain = try await postgres.device("bob")
        let newest = try await aliceAgain.ring("bob", ringing: [bobAgain])
        try await postgres.awaitLogged(newest.sessionId, for: "bob")
        #expect(try await postgres.callLogIDs("bob").first == newest.sessionId)
        #expect(try store.lastCallID() > lastCallID)
        (store as? PostgresCallLogStore)?.close()

        let again = try ChildProcess("callgate", ["migrate-sqlite", "--from", sqlite.database, "--to", target])
        #expect(await again.exitStatus() != 0)
        #expect(again.standardError.contains("copy into an empty database"), "\(again.standardError)")
    }

    @Test func aMissingFileOrANonPostgresTargetIsRefusedBeforeAnythingIsWritten() async throws {
        let directory = try TemporaryDirectory()
        let target = try await SharedPostgres.freshDatabase()
        let missing = try ChildProcess("callgate", ["migrate-sqlite", "--from", directory.path("none.sqlite"), "--to", target])
        #expect(await missing.exitStatus() != 0)
        #expect(missing.standardError.contains("there is no SQLite file at"), "\(missing.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.sqlite")))
        let wrong = try ChildProcess("callgate", ["migrate-sqlite", "--from", directory.path("none.sqlite"), "--to", "/tmp/x.sqlite"])
        #expect(await wrong.exitStatus() != 0)
        #expect(wrong.standardError.contains("postgres://"), "\(wrong.standardError)")
    }

    @Test func migrateBringsEitherStoreToTheCurrentSchemaOnce() async throws {
        let directory = try TemporaryDirectory()
        let target = try await SharedPostgres.freshDatabase()
        let first = try ChildProcess("callgate", ["migrate", "--database", target])
        #expect(await first.exitStatus() == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("applied 1 (call log, groups, open calls, webhook outbox), 2 (times as timestamptz)"),
                "\(first.standardOutput)")
        let second = try ChildProcess("callgate", ["migrate", "--database", target])
        #expect(await second.exitStatus() == 0)
        #expect(second.standardOutput.contains("the schema is already version \(PostgresMigrations.newest)"), "\(second.standardOutput)")
        #expect(!second.standardOutput.contains("password"))

        let file = directory.path("callgate.sqlite")
        let missing = try ChildProcess("callgate", ["migrate", "--database", file])
        #expect(await missing.exitStatus() != 0)
        #expect(missing.standardError.contains("there is no SQLite file at"), "\(missing.standardError)")
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let sqlite = try ChildProcess("callgate", ["migrate", "--database", file])
        #expect(await sqlite.exitStatus() == 0, "\(sqlite.standardError)")
        #expect(sqlite.standardOutput.contains("SQLite file \(file): applied v1"), "\(sqlite.standardOutput)")
        let down = try ChildProcess("callgate", ["migrate", "--database", "postgres://callgate@127.0.0.1:1/none?sslmode=disable"])
        #expect(await down.exitStatus() != 0)
    }
}
