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
