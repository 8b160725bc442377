/// The paging rules of the call log, over a list already filtered and sorted newest first.
/// The in-memory store uses them as they are; the SQL store implements the same rules in SQL.
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
