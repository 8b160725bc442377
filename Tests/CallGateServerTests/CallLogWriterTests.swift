import TestSupport
import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Foundation
import Logging
import Prometheus
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

    /// Store metrics in a registry of their own.
    static func metrics(in registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) -> StoreMetrics {
        GatewayMetrics(registry: registry).store
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
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics()) { sequence in
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
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics()) { sequence in
            reported.withLock { $0 = sequence }
        }
        _ = writer.submit([.call(Self.record(7, .ended))])
        writer.stop()
        #expect(store.attempts == 3)
        #expect(reported.withLock { $0 } == 1)
        #expect(try store.inner.lastCallID() == 7)
    }

    @Test func commitsAndFailedAttemptsAreMeasured() throws {
        let store = FlakyStore(failures: 1)
        let registry = PrometheusCollectorRegistry()
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics(in: registry)) { _ in }
        _ = writer.submit([.call(Self.record(1, .ended)), .call(Self.record(2, .ended)), .call(Self.record(1, .ended))])
        writer.stop()
        let scrape = MetricsScrape(registry.emitToString())
        #expect(scrape["callgate_store_write_failures_total"] == 1)
        #expect(scrape["callgate_store_write_seconds_count"] == 1)
        #expect(scrape["callgate_store_batch_size_count"] == 1)
        #expect(scrape["callgate_store_batch_size_sum"] == 2)
        #expect(scrape[#"callgate_store_batch_size_bucket{le="1.0"}"#] == 0)
        #expect(scrape[#"callgate_store_batch_size_bucket{le="2.0"}"#] == 1)
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
    func isWritable() -> Bool { state.withLock { $0.failures == 0 } }
}
