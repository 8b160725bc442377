import CallGateProtocol

/// Where call logs, group membership, missed calls and the webhook outbox are kept across
/// restarts.
///
/// Records read back carry the recording URLs attached with `attachRecordingURL`; saving a
/// record again keeps them (a URL is attached beside the record, not in it).
///
/// Implementations are thread-safe: the gateway writes from one writer thread (batches, in
/// order) and reads from others; nothing here runs on the service thread.
public protocol CallLogStore: WebhookOutbox, MissedCallStore {
    /// Applies `writes` in order, all or none, durably before returning, noting the calls the
    /// saved records make missed (`MissedCallStore`). Returns the users whose missed-call count
    /// changed, and the ids of the calls it left unwritten because another owner holds them now
    /// (cluster mode: a survivor took them over, raising their epoch), with nothing else of
    /// theirs written (member rows, missed calls, webhook messages); none outside cluster mode.
    @discardableResult
    func apply(_ writes: [StoreWrite]) throws -> StoreApplied
    /// The calls still `initiated` or `ongoing`, oldest first, with their steps: what a
    /// restarted gateway resumes.
    func openCalls() throws -> [CallLogRecord]
    /// The calls still `initiated` or `ongoing`, oldest first, without their steps: what the
    /// admin API lists (`GET /v1/calls`).
    func liveCalls() throws -> [CallLogRecord]
    /// The highest call id ever saved, 0 for an empty store.
    func lastCallID() throws -> Int64
    /// Every group, for the gateway's in-memory group table.
    func groups() throws -> [GroupRecord]
    /// One page of the calls `query.viewer` was part of, newest first, without their steps.
    func page(_ query: CallLogQuery) throws -> CallLogPage
    /// The calls under `sessionId` that `viewer` was part of, newest first, with their steps.
    func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord]
    /// Attaches the file URL of recording `rid` to the one call under `sessionId` that has it
    /// (and, with `startedAt`, whose recording `rid` started then, Unix seconds). A meeting id may
    /// hold several meetings, each numbering its recordings from 1: when more than one call
    /// matches, nothing is attached.
    func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch
    /// Whether a write would commit now, for the readiness probe: a store that cannot take
    /// writes (read-only file system, lock held by another process) answers false. May block
    /// for as long as a write.
    func isWritable() -> Bool
    /// Writes what the store holds between writes (SQLite's missed-call counts,
    /// `MissedCountCache`), as a clean stop does after the last batch, so the next start has
    /// nothing to rebuild. On the writer thread.
    func flush() throws
}

extension CallLogStore {
    /// A store that holds nothing between writes has nothing to write.
    public func flush() throws {}
}

/// One change for the store; the writer applies a batch of them in one transaction, in order.
public enum StoreWrite: Hashable, Sendable, Codable {
    /// Creates or replaces the call with this record's id.
    case call(CallLogRecord)
    /// Creates or replaces a group.
    case putGroup(GroupRecord)
    /// Deletes a group (nothing happens if it does not exist).
    case deleteGroup(String)
    /// Puts a webhook message in the outbox: one pending delivery for each enabled endpoint that
    /// wants its type (none when no endpoint does), due at once.
    case webhook(WebhookMessage)
}

extension StoreWrite {
    /// `writes` in order without the saves of a call that a later save in `writes` replaces:
    /// a store writes a call once per batch, as its last save (the result is the same, and a
    /// busy group call, re-saved at every member's answer, costs one write per batch).
    public static func lastSaves(_ writes: [StoreWrite]) -> [StoreWrite] {
        var last: [Int64: Int] = [:]
        for (index, write) in writes.enumerated() {
            if case .call(let record) = write {
                last[record.id] = index
            }
        }
        return writes.enumerated().compactMap { index, write in
            if case .call(let record) = write, last[record.id] != index { return nil }
            return write
        }
    }
}

/// What attaching a recording URL found: the one call that has the recording, none, or several
/// (a meeting id that held several meetings, each with a recording of that id).
public enum RecordingMatch: Equatable, Sendable {
    /// The URL was attached to the only call with the recording.
    case attached
    /// No call under the session id has the recording (with the start time asked for).
    case notFound
    /// Several calls under the session id have it; the URL was attached to none.
    case ambiguous
}

/// One request for a page of a user's call log.
public struct CallLogQuery: Hashable, Sendable {
    /// Where the page starts: a page number (from 1) or a cursor.
    public enum Position: Hashable, Sendable {
        /// Page `n` of `perPage` calls, newest first.
        case page(Int)
        /// The calls next to a cursor.
        case cursor(CallLogCursor)
    }

    /// The asking user; only calls they were part of are visible.
    public var viewer: String
    /// Which calls.
    public var filter: CallLogFilter
    /// How many calls a page holds.
    public var perPage: Int
    /// Which page.
    public var position: Position

    /// Makes a query.
    public init(viewer: String, filter: CallLogFilter = .init(), perPage: Int = 30, position: Position = .page(1)) {
        self.viewer = viewer
        self.filter = filter
        self.perPage = perPage
        self.position = position
    }
}

/// The filters of a call log query; nil members do not filter.
public struct CallLogFilter: Hashable, Sendable {
    /// `call` or `meet` (the API's `mode`).
    public var category: CallCategory?
    /// Audio or video (the API's `type`).
    public var callType: CallType?
    /// One call status.
    public var status: CallStatus?
    /// Incoming or outgoing, from the asking user's side.
    public var direction: CallDirection?
    /// Only calls with at least one recording, when true.
    public var hasRecording: Bool
    /// Only calls that this user was also part of (the API's `uid`).
    public var withUser: String?
    /// Only calls that rang this group (the API's `guid`).
    public var group: String?

    /// Makes a filter.
    public init(
        category: CallCategory? = nil, callType: CallType? = nil, status: CallStatus? = nil,
        direction: CallDirection? = nil, hasRecording: Bool = false, withUser: String? = nil, group: String? = nil
    ) {
        self.category = category
        self.callType = callType
        self.status = status
        self.direction = direction
        self.hasRecording = hasRecording
        self.withUser = withUser
        self.group = group
    }

    /// Whether `record` passes every filter, for the user `viewer`.
    public func matches(_ record: CallLogRecord, viewer: String) -> Bool {
        if let category, record.callCategory != category { return false }
        if let callType, record.callType != callType { return false }
        if let status, record.callStatus != status { return false }
        if let direction, record.direction(for: viewer) != direction { return false }
        if hasRecording, record.recordings.isEmpty { return false }
        if let withUser, !record.involves(withUser) { return false }
        if let group, record.groupID != group { return false }
        return true
    }
}

/// A position in a user's call list, newest first, that stays put while new calls arrive:
/// it names a call id and a side of it.
public enum CallLogCursor: Hashable, Sendable {
    /// The calls older than this id (the next page).
    case olderThan(Int64)
    /// The calls newer than this id (the previous page).
    case newerThan(Int64)

    /// The opaque text form, as the API returns it: `o<id>` or `n<id>`.
    public var encoded: String {
        switch self {
        case .olderThan(let id): "o\(id)"
        case .newerThan(let id): "n\(id)"
        }
    }

    /// Reads the text form; nil when it is not one.
    public init?(encoded text: String) {
        guard let side = text.first, let id = Int64(text.dropFirst()), id >= 0,
              String(id) == text.dropFirst()
        else { return nil }
        switch side {
        case "o": self = .olderThan(id)
        case "n": self = .newerThan(id)
        default: return nil
        }
    }
}

/// One page of a user's call log, newest first, with where it sits in the whole list.
public struct CallLogPage: Hashable, Sendable {
    /// The calls of the page.
    public var records: [CallLogRecord]
    /// How many calls match the query's filters.
    public var total: Int
    /// The page's number, from 1 (for a cursor page: where its first call falls).
    public var currentPage: Int
    /// Where the older calls continue; nil on the last page.
    public var next: CallLogCursor?
    /// Where the newer calls are; nil when none match.
    public var previous: CallLogCursor?

    /// Makes a page.
    public init(records: [CallLogRecord], total: Int, currentPage: Int, next: CallLogCursor?, previous: CallLogCursor?) {
        self.records = records
        self.total = total
        self.currentPage = currentPage
        self.next = next
        self.previous = previous
    }
}

/// The paging rules of the call log, over a list already filtered and sorted newest first.
/// The in-memory store uses them as they are; the SQL stores count and read in SQL, then
/// assemble the page with `page(_:start:size:total:oldest:position:)`.
public enum CallLogPaging {
    /// The page `query` asks for out of `matching` (newest first, every call visible and
    /// passing the filters).
    public static func page(of matching: [CallLogRecord], for query: CallLogQuery) -> CallLogPage {
        let size = max(1, query.perPage)
        let range = window(in: matching, size: size, position: query.position)
        let records = Array(matching[range])
        var next: CallLogCursor?
        if range.upperBound < matching.count, let last = records.last {
            next = .olderThan(last.id)
        }
        var previous: CallLogCursor?
        if range.lowerBound > 0 {
            // An empty page past the end points back at the last call.
            previous = .newerThan(records.first?.id ?? matching[range.lowerBound - 1].id - 1)
        }
        var currentPage = range.lowerBound / size + 1
        if case .page(let number) = query.position {
            currentPage = max(1, number)
        }
        return CallLogPage(
            records: records, total: matching.count, currentPage: currentPage, next: next, previous: previous)
    }

    /// The page a SQL store read: `records` sit at `start` in the `total` matching calls, the
    /// oldest of which is `oldest`; the cursors and page number exactly as `page(of:for:)`
    /// gives them.
    public static func page(
        _ records: [CallLogRecord], start: Int, size: Int, total: Int, oldest: Int64?, position: CallLogQuery.Position
    ) -> CallLogPage {
        var next: CallLogCursor?
        if start + records.count < total, let last = records.last {
            next = .olderThan(last.id)
        }
        var previous: CallLogCursor?
        if start > 0, let id = records.first?.id ?? oldest.map({ $0 - 1 }) {
            // An empty page past the end starts after the oldest call and points back at it.
            previous = .newerThan(id)
        }
        var currentPage = start / size + 1
        if case .page(let number) = position {
            currentPage = max(1, number)
        }
        return CallLogPage(records: records, total: total, currentPage: currentPage, next: next, previous: previous)
    }

    /// The indexes of `matching` that the page at `position` covers.
    static func window(in matching: [CallLogRecord], size: Int, position: CallLogQuery.Position) -> Range<Int> {
        let count = matching.count
        switch position {
        case .page(let number):
            let (offset, overflow) = (max(1, number) - 1).multipliedReportingOverflow(by: size)
            let start = overflow ? count : min(count, offset)
            return start..<start + min(size, count - start)
        case .cursor(.olderThan(let id)):
            let start = matching.firstIndex { $0.id < id } ?? count
            return start..<start + min(size, count - start)
        case .cursor(.newerThan(let id)):
            let end = matching.firstIndex { $0.id <= id } ?? count
            return max(0, end - size)..<end
        }
    }
}
