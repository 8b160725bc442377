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
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics()) { sequence, _, _ in
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
        let store = ScriptedStore(failures: 2)
        let reported = Mutex<UInt64>(0)
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics()) { sequence, _, _ in
            reported.withLock { $0 = sequence }
        }
        _ = writer.submit([.call(Self.record(7, .ended))])
        writer.stop()
        #expect(store.attempts == 3)
        #expect(reported.withLock { $0 } == 1)
        #expect(try store.inner.lastCallID() == 7)
    }

    @Test func commitsAndFailedAttemptsAreMeasured() throws {
        let store = ScriptedStore(failures: 1)
        let registry = PrometheusCollectorRegistry()
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: Self.metrics(in: registry)) { _, _, _ in }
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

extension CallLogWriterTests {
    @Test func aWriteTheStoreRefusesForGoodIsSetAsideAndBlocksNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dead-letters-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("dead.jsonl").path
        let store = ScriptedStore(poison: 99)
        let registry = PrometheusCollectorRegistry()
        let reported = Mutex<UInt64>(0)
        let writer = CallLogWriter(
            store: store, deadLetterPath: file, logger: Logger(label: "test"), metrics: Self.metrics(in: registry)
        ) { sequence, _, _ in reported.withLock { $0 = sequence } }
        _ = writer.submit([.call(Self.record(1, .ended)), .call(Self.record(99, .ended)), .call(Self.record(2, .ended))])
        _ = writer.submit([.call(Self.record(3, .ended))])
        writer.stop()
        #expect(reported.withLock { $0 } == 2, "the poisoned batch still counts as done")
        #expect(try store.inner.calls(sessionId: "s1", visibleTo: "alice").count == 1)
        #expect(try store.inner.calls(sessionId: "s2", visibleTo: "alice").count == 1)
        #expect(try store.inner.calls(sessionId: "s3", visibleTo: "alice").count == 1)
        #expect(try store.inner.calls(sessionId: "s99", visibleTo: "alice").isEmpty)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        struct Entry: Decodable { var error: String; var write: StoreWrite }
        let entry = try JSONDecoder().decode(Entry.self, from: Data(lines[0].utf8))
        #expect(entry.write == .call(Self.record(99, .ended)))
        #expect(MetricsScrape(registry.emitToString())["callgate_store_dead_letters_total"] == 1)
    }

    @Test func anOutageIsRetriedNotSetAsideAndHealthShowsIt() async throws {
        let store = ScriptedStore()
        store.isDown = true
        let writer = CallLogWriter(
            store: store, logger: Logger(label: "test"), metrics: Self.metrics(), probeInterval: .milliseconds(50)
        ) { _, _, _ in }
        _ = writer.submit([.call(Self.record(1, .ended)), .call(Self.record(2, .ended))])
        var health = writer.health
        for _ in 0..<100 where health.failingSince == nil {
            try await Task.sleep(for: .milliseconds(20))
            health = writer.health
        }
        #expect(health.failingSince != nil)
        #expect(health.queuedWrites == 2)
        #expect(health.lastError != nil)
        store.isDown = false
        writer.stop()
        #expect(writer.health.failingSince == nil)
        #expect(writer.health.queuedWrites == 0)
        #expect(try store.inner.lastCallID() == 2, "nothing was set aside")
    }

    @Test func theIdleProbeNoticesAnOutageWithoutAWrite() async throws {
        let store = ScriptedStore()
        let writer = CallLogWriter(
            store: store, logger: Logger(label: "test"), metrics: Self.metrics(), probeInterval: .milliseconds(30)
        ) { _, _, _ in }
        defer { writer.stop() }
        store.isDown = true
        var health = writer.health
        for _ in 0..<100 where health.failingSince == nil {
            try await Task.sleep(for: .milliseconds(20))
            health = writer.health
        }
        #expect(health.failingSince != nil)
        store.isDown = false
        for _ in 0..<100 where health.failingSince != nil {
            try await Task.sleep(for: .milliseconds(20))
            health = writer.health
        }
        #expect(health.failingSince == nil)
    }
}

/// A store that fails on cue: its first `failures` writes throw (an outage its probe sees too),
/// every write throws while `isDown` (probe included), and any batch holding the call `poison`
/// throws while the probe commits (a write that can never succeed).
final class ScriptedStore: CallLogStore, ForwardingWebhookOutbox {
    struct Failure: Error {}

    let inner = InMemoryCallLogStore()
    private let poison: Int64?
    private let state: Mutex<(failures: Int, attempts: Int, down: Bool)>

    init(failures: Int = 0, poison: Int64? = nil) {
        self.poison = poison
        state = Mutex((failures, 0, false))
    }

    var attempts: Int { state.withLock { $0.attempts } }

    var isDown: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    func apply(_ writes: [StoreWrite]) throws -> StoreApplied {
        let fail = state.withLock { state -> Bool in
            state.attempts += 1
            if state.down { return true }
            guard state.failures > 0 else { return false }
            state.failures -= 1
            return true
        }
        if fail { throw Failure() }
        if writes.contains(where: { if case .call(let record) = $0 { record.id == poison } else { false } }) {
            throw Failure()
        }
        return try inner.apply(writes)
    }

    func openCalls() throws -> [CallLogRecord] { try inner.openCalls() }
    func liveCalls() throws -> [CallLogRecord] { try inner.liveCalls() }
    func lastCallID() throws -> Int64 { try inner.lastCallID() }
    func groups() throws -> [GroupRecord] { try inner.groups() }
    func page(_ query: CallLogQuery) throws -> CallLogPage { try inner.page(query) }
    func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord] {
        try inner.calls(sessionId: sessionId, visibleTo: viewer)
    }
    func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch {
        try inner.attachRecordingURL(url, sessionId: sessionId, rid: rid, startedAt: startedAt)
    }
    func isWritable() -> Bool { state.withLock { !$0.down && $0.failures == 0 } }
    func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls] { try inner.missedCalls(of: uids) }
    func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark? {
        try inner.markCallsSeen(of: uid, through: sessionId, at: at)
    }
    func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64> {
        try inner.unseenMissedCalls(of: uid, among: ids)
    }
}
