import CallGateClient
import CallGateProtocol
import CallGateServer
import CallGateStoreSQLite
import Foundation
import Synchronization
import Testing

/// A store that cannot write for a while: an op taken waits for it, unheard; past
/// `--max-queued-writes`, ops that write the call log get `ERR_STORE_UNAVAILABLE` and group
/// changes 503, everything else goes on, and all of it comes back when the store does. The outage is a real SQLite write lock held by another
/// connection.
@Suite("Store outages over real sockets")
struct StoreOutageTests {
    @Test func pastItsBacklogTheGatewayRefusesWritesAndKeepsServingTheRest() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("callgate.sqlite")
        let store = try SQLiteCallLogStore(path: path, durability: .processCrash, busyTimeout: 0.1)
        let gateway = try await TestGateway(directory: directory) {
            $0.store = store
            $0.maxQueuedWrites = 1
            $0.storeProbeInterval = .milliseconds(200)
        }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")

        let first = try await alice.ring("bob", ringing: [bob])
        let lock = try await WriteLockHolder.hold(path)
        // The accept is taken, and waits for the store: nothing tells of it before it is durable
        // (and nothing else reaches alice's and bob's sockets before it).
        let accepting = Task { try await bob.acceptCall(first.sessionId) }
        await alice.expectSilence(for: .milliseconds(500))
        await expectError(.storeUnavailable) { try await carol.initiateCall(to: "dave") }
        #expect(try await carol.ping().serverTime > 0, "ops that write nothing go on")
        #expect(try await gateway.readiness(until: 503).0 == 503)
        let (groupStatus, groupBody) = try await gateway.admin("PUT", "/v1/groups/team", json: #"{"name":"T","members":["alice","bob"]}"#)
        #expect(groupStatus == 503)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: groupBody).error.code == .storeUnavailable)
        let report = try await ProtoChecker.check([SchemaLine(schema: "http.error", json: groupBody)])
        #expect(report.exitCode == 0, "\(report.output)")

        await lock.unlock()
        #expect(try await gateway.readiness(until: 200).0 == 200)
        #expect(try await accepting.value.callStatus == .ongoing)
        _ = try await alice.expectPush()
        #expect(try await gateway.admin("PUT", "/v1/groups/team", json: #"{"name":"T","members":["alice","bob"]}"#).0 == 200)
    }

    /// `leaveSession` that ends a 1:1 call answers only once the call's `ended` status is
    /// durable, as `endCall` does.
    @Test func aLeaveThatEndsACallIsAnsweredOnceTheEndIsDurable() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("callgate.sqlite")
        let store = try SQLiteCallLogStore(path: path, durability: .processCrash, busyTimeout: 0.1)
        let gateway = try await TestGateway(directory: directory) { $0.store = store }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.establishCallInSession(with: bob, uid: "bob")

        let lock = try await WriteLockHolder.hold(path)
        let answered = Mutex(false)
        let leave = Task {
            let session = try await bob.leaveSession(call.sessionId)
            answered.withLock { $0 = true }
            return session
        }
        try await Task.sleep(for: .milliseconds(600))
        #expect(!answered.withLock { $0 }, "the reply waits while the ended status cannot be written")
        await lock.unlock()
        #expect(try await leave.value.participants.isEmpty)
        let ended = try await gateway.callLogs("alice")
        #expect(ended.data.first { $0.sessionId == call.sessionId }?.callStatus == .ended)
    }
}
