import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Foundation
import Logging
import Synchronization
import Testing

/// The writer applies batches in order, keeps one save per call, retries failures and drains on stop.
@Suite struct CallLogWriterTests {
    static func record(_ id: Int64, _ status: CallStatus) -> CallLogRecord {
        CallLogRecord(
            id: id, sessionId: "s\(id)", callCategory: .call, callType: .audio, callStatus: status,
            initiator: User(uid: "alice", name: "Alice"), receiver: .user(User(uid: "bob", name: "Bob")),
            initiatedAt: 1_700_000_000,
            participants: [CallLogParticipantRecord(uid: "alice", name: "Alice", state: .joined)])
    }

    @Test func coalescingKeepsTheLastSaveOfEachCallInOrder() {
        let group = GroupRecord(guid: "team", name: "Team", members: ["alice"])
        let writes: [StoreWrite] = [
            .call(Self.record(1, .initiated)), .putGroup(group), .call(Self.record(2, .initiated)),
            .call(Self.record(1, .ongoing)), .deleteGroup("team"), .call(Self.record(1, .ended)),
        ]
        #expect(CallLogWriter.coalesced(writes) == [
            .putGroup(group), .call(Self.record(2, .initiated)), .deleteGroup("team"), .call(Self.record(1, .ended)),
        ])
    }

    @Test func everySubmissionIsCommittedAndReported() throws {
        let store = InMemoryCallLogStore()
        let reported = Mutex<UInt64>(0)
        let writer = CallLogWriter(store: store, logger: Logger(label: "test")) { sequence in
            reported.withLock { $0 = max($0, sequence) }
        }
        var last: UInt64 = 0
        for id in 1...200 {
            last = writer.submit([.call(Self.record(Int64(id), .ended))])
        }
        writer.stop()
        #expect(last == 200)
        #expect(reported.withLock { $0 } == 200)
        #expect(try store.lastCallID() == 200)
        #expect(try store.openCalls().isEmpty)
    }

    @Test func aFailingStoreIsRetriedUntilItWrites() throws {
        let store = FlakyStore(failures: 2)
        let reported = Mutex<UInt64>(0)
        let writer = CallLogWriter(store: store, logger: Logger(label: "test")) { sequence in
            reported.withLock { $0 = sequence }
        }
        _ = writer.submit([.call(Self.record(7, .ended))])
        writer.stop()
        #expect(store.attempts == 3)
        #expect(reported.withLock { $0 } == 1)
        #expect(try store.inner.lastCallID() == 7)
    }
}

/// A store whose first `failures` writes throw.
final class FlakyStore: CallLogStore {
    struct Failure: Error {}

    let inner = InMemoryCallLogStore()
    private let state: Mutex<(failures: Int, attempts: Int)>

    init(failures: Int) {
        state = Mutex((failures, 0))
    }

    var attempts: Int { state.withLock { $0.attempts } }

    func apply(_ writes: [StoreWrite]) throws {
        let fail = state.withLock { state -> Bool in
            state.attempts += 1
            guard state.failures > 0 else { return false }
            state.failures -= 1
            return true
        }
        if fail { throw Failure() }
        try inner.apply(writes)
    }

    func openCalls() throws -> [CallLogRecord] { try inner.openCalls() }
    func lastCallID() throws -> Int64 { try inner.lastCallID() }
    func groups() throws -> [GroupRecord] { try inner.groups() }
    func page(_ query: CallLogQuery) throws -> CallLogPage { try inner.page(query) }
    func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord] {
        try inner.calls(sessionId: sessionId, visibleTo: viewer)
    }
    func attachRecordingURL(_ url: String, sessionId: String, rid: String) throws -> Bool {
        try inner.attachRecordingURL(url, sessionId: sessionId, rid: rid)
    }
}
