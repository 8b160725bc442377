import CallGateCore
import GRDB

extension SQLiteCallLogStore {
    /// One page of the calls `query.viewer` was part of, newest first, by the rules of
    /// `CallLogPaging` (the in-memory store's), in SQL: one pass counts the matching calls and
    /// finds where the page starts, a second reads only the page's rows. Both run in one read
    /// snapshot, so the counts and the rows agree while the writer commits.
    public func page(_ query: CallLogQuery) throws -> CallLogPage {
        let size = max(1, query.perPage)
        let filter = CallLogSQLFilter(viewer: query.viewer, filter: query.filter)
        return try read("reading a page of calls") { db in
            let summary = try summary(of: filter, around: query.position, in: db)
            let reader = CallLogReader(db: db)
            let sql = filter.rowsSQL(for: query.position)
            let start: Int
            var records: [CallLogRecord] = []
            switch query.position {
            case .page(let number):
                let (offset, overflow) = (max(1, number) - 1).multipliedReportingOverflow(by: size)
                start = overflow ? summary.total : min(summary.total, offset)
                if start < summary.total {
                    records = try reader.records(sql, arguments: filter.arguments + [size, start])
                }
            case .cursor(.olderThan(let id)):
                start = summary.newer
                if start < summary.total {
                    records = try reader.records(sql, arguments: filter.arguments + [id, size])
                }
            case .cursor(.newerThan(let id)):
                start = max(0, summary.newer - size)
                if summary.newer > 0 {
                    records = try reader.records(sql, arguments: filter.arguments + [id, size]).reversed()
                }
            }
            return CallLogPaging.page(
                records, start: start, size: size, total: summary.total, oldest: summary.oldest, position: query.position)
        }
    }

    /// Counts of the matching calls relative to the position.
    private struct Summary {
        /// How many calls match.
        var total: Int
        /// How many of them lie on the newer side of the cursor: ids >= an `olderThan` id,
        /// ids > a `newerThan` id (unused for page numbers).
        var newer: Int
        /// The oldest matching id, nil when none match.
        var oldest: Int64?
    }

    /// The counts for `filter` around `position`, in one pass over the matching calls.
    private func summary(of filter: CallLogSQLFilter, around position: CallLogQuery.Position, in db: Database) throws
        -> Summary
    {
        var comparison = ">="
        var pivot: Int64 = 0
        switch position {
        case .page: break
        case .cursor(.olderThan(let id)): pivot = id
        case .cursor(.newerThan(let id)): (comparison, pivot) = (">", id)
        }
        let row = try Row.fetchOne(
            db.cachedStatement(sql: filter.summarySQL(comparison: comparison)), arguments: [pivot] + filter.arguments)
        guard let row else { return Summary(total: 0, newer: 0, oldest: nil) }
        return Summary(total: row["total"], newer: row["newer"], oldest: row["oldest"])
    }
}
