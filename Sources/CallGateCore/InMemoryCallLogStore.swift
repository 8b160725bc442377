import Synchronization

/// A call log store (and webhook outbox) that keeps everything in memory: for tests and for a
/// gateway run without a database. It is also the reference the SQL store's queries are checked against.
///
/// Thread-safe: one lock around all state.
public final class InMemoryCallLogStore: CallLogStore {
    struct State {
        var calls: [Int64: CallLogRecord] = [:]
        var groups: [String: GroupRecord] = [:]
        /// call id -> rid -> URL.
        var recordingURLs: [Int64: [String: String]] = [:]
        var lastID: Int64 = 0
        /// Webhook endpoints and deliveries (`InMemoryCallLogStore+Webhooks.swift`).
        var outbox = InMemoryOutbox()
        /// Missed calls and their counts (`InMemoryCallLogStore+MissedCalls.swift`).
        var missed = InMemoryMissedCalls()

        /// `record` with the URLs attached to its recordings.
        func withURLs(_ record: CallLogRecord) -> CallLogRecord {
            guard let urls = recordingURLs[record.id] else { return record }
            var copy = record
            for index in copy.recordings.indices {
                copy.recordings[index].recordingUrl = urls[copy.recordings[index].rid]
            }
            return copy
        }
    }

    let state = Mutex(State())

    /// Makes an empty store.
    public init() {}

    /// Applies `writes` in order, each call as its last save in the batch, as the SQL stores do
    /// (`StoreWrite.lastSaves`); a process's own memory has no other owner, so nothing is fenced.
    @discardableResult
    public func apply(_ writes: [StoreWrite]) throws -> StoreApplied {
        state.withLock { state in
            var missing: Set<String> = []
            for write in StoreWrite.lastSaves(writes) {
                switch write {
                case .call(let record):
                    let old = state.calls.updateValue(record, forKey: record.id)
                    state.lastID = max(state.lastID, record.id)
                    missing.formUnion(state.missed.note(record, replacing: old))
                case .putGroup(let group):
                    state.groups[group.guid] = group
                case .deleteGroup(let guid):
                    state.groups[guid] = nil
                case .webhook(let message):
                    state.outbox.enqueue(message)
                }
            }
            return StoreApplied(missedCalls: state.missed.revise(missing))
        }
    }

    /// The calls still open, oldest first.
    public func openCalls() throws -> [CallLogRecord] {
        state.withLock { state in
            state.calls.values.filter(\.isOpen).sorted { $0.id < $1.id }.map { state.withURLs($0) }
        }
    }

    /// The calls still open, oldest first, without their steps.
    public func liveCalls() throws -> [CallLogRecord] {
        try openCalls().map { record in
            var listed = record
            listed.steps = CallSteps()
            return listed
        }
    }

    /// The highest call id ever saved.
    public func lastCallID() throws -> Int64 {
        state.withLock { $0.lastID }
    }

    /// Every group, by guid.
    public func groups() throws -> [GroupRecord] {
        state.withLock { $0.groups.values.sorted { $0.guid < $1.guid } }
    }

    /// One page of the viewer's calls, newest first.
    public func page(_ query: CallLogQuery) throws -> CallLogPage {
        let matching = state.withLock { state in
            state.calls.values
                .filter { $0.involves(query.viewer) && query.filter.matches($0, viewer: query.viewer) }
                .sorted { $0.id > $1.id }
                .map { record in
                    var listed = state.withURLs(record)
                    listed.steps = CallSteps()
                    return listed
                }
        }
        return CallLogPaging.page(of: matching, for: query)
    }

    /// The viewer's calls under `sessionId`, newest first.
    public func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord] {
        state.withLock { state in
            state.calls.values
                .filter { $0.sessionId == sessionId && $0.involves(viewer) }
                .sorted { $0.id > $1.id }
                .map { state.withURLs($0) }
        }
    }

    /// Always true: memory takes every write.
    public func isWritable() -> Bool {
        true
    }

    /// Attaches a recording URL to the newest call under `sessionId`.
    public func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch {
        state.withLock { state in
            let matches = state.calls.values.filter { call in
                call.sessionId == sessionId
                    && call.recordings.contains { $0.rid == rid && (startedAt == nil || $0.startedAt == startedAt) }
            }
            guard let call = matches.first else { return .notFound }
            guard matches.count == 1 else { return .ambiguous }
            state.recordingURLs[call.id, default: [:]][rid] = url
            return .attached
        }
    }
}
