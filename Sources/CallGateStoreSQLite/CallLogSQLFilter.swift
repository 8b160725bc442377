import CallGateCore
import CallGateProtocol
import GRDB

/// The SQL form of "the calls `viewer` was part of that pass `filter`": the same predicate as
/// `CallLogRecord.involves` plus `CallLogFilter.matches`, over the call and its `call_members`
/// row for the viewer (`c` and `m`).
///
/// The SQL text depends only on which filters are set, so each combination is one cached
/// statement; the values are arguments.
struct CallLogSQLFilter {
    /// The tables. Usually the viewer's `call_members` rows lead, newest first by their
    /// primary key; with a group filter the group's calls lead (index `calls_by_group`): a
    /// group's calls are usually far fewer than all the calls of the viewer. CROSS JOIN fixes
    /// that order for SQLite.
    let from: String
    /// The call id column in the leading table, which ORDER BY and cursors use so the order
    /// comes from the index, not from a sort.
    let id: String
    /// The conditions, ANDed.
    private(set) var conditions: [String] = ["m.uid = ?"]
    /// Their arguments, in order.
    private(set) var arguments: StatementArguments

    /// The predicate for `filter` as seen by `viewer`.
    init(viewer: String, filter: CallLogFilter) {
        if filter.group == nil {
            (from, id) = ("call_members AS m JOIN calls AS c ON c.id = m.call_id", "m.call_id")
        } else {
            (from, id) = ("calls AS c CROSS JOIN call_members AS m ON m.call_id = c.id", "c.id")
        }
        arguments = [viewer]
        if let category = filter.category {
            add("c.category = ?", category.rawValue)
        }
        if let callType = filter.callType {
            add("c.call_type = ?", callType.rawValue)
        }
        if let status = filter.status {
            add("c.status = ?", status.rawValue)
        }
        switch filter.direction {
        case .outgoing?: add("c.initiator_uid = ?", viewer)
        case .incoming?: add("c.initiator_uid <> ?", viewer)
        case nil: break
        }
        if filter.hasRecording {
            conditions.append("c.has_recording = 1")
        }
        if let withUser = filter.withUser {
            add("EXISTS (SELECT 1 FROM call_members AS w WHERE w.uid = ? AND w.call_id = c.id)", withUser)
        }
        if let group = filter.group {
            add("c.receiver_type = '\(ReceiverType.group.rawValue)' AND c.receiver_id = ?", group)
        }
    }

    /// The WHERE clause, without the keyword.
    var whereClause: String {
        conditions.joined(separator: " AND ")
    }

    /// The query counting the matching calls (`total`), those whose id compares with the
    /// argument by `comparison` (`newer`), and the oldest id (`oldest`). Its first argument is
    /// the id to compare with, then `arguments`.
    func summarySQL(comparison: String) -> String {
        """
        SELECT COUNT(*) AS total, COALESCE(SUM(\(id) \(comparison) ?), 0) AS newer, MIN(\(id)) AS oldest
        FROM \(from) WHERE \(whereClause)
        """
    }

    /// The query of a page's rows. After `arguments` come, for a page number, the page size
    /// and the offset (newest first); for a cursor, its id and the page size (the calls
    /// nearest the cursor first: newest first for `olderThan`, oldest first for `newerThan`).
    func rowsSQL(for position: CallLogQuery.Position) -> String {
        let select = "SELECT \(CallLogReader.columns) FROM \(from) WHERE \(whereClause)"
        switch position {
        case .page: return "\(select) ORDER BY \(id) DESC LIMIT ? OFFSET ?"
        case .cursor(.olderThan): return "\(select) AND \(id) < ? ORDER BY \(id) DESC LIMIT ?"
        case .cursor(.newerThan): return "\(select) AND \(id) > ? ORDER BY \(id) ASC LIMIT ?"
        }
    }

    /// Adds a condition with one argument.
    private mutating func add(_ condition: String, _ value: String) {
        conditions.append(condition)
        arguments += [value]
    }
}
