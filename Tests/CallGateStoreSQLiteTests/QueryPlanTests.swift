import CallGateCore
import GRDB
import Testing

@testable import CallGateStoreSQLite

/// Every query runs on an index: no full scan of a table and no sort, for every combination
/// of filters and every kind of position.
struct QueryPlanTests {
    /// Every combination of set and unset filters.
    private static let filters: [CallLogFilter] = (0..<128).map { bits in
        CallLogFilter(
            category: bits & 1 != 0 ? .call : nil, callType: bits & 2 != 0 ? .video : nil,
            status: bits & 4 != 0 ? .ended : nil, direction: bits & 8 != 0 ? .incoming : nil,
            hasRecording: bits & 16 != 0, withUser: bits & 32 != 0 ? "bob" : nil, group: bits & 64 != 0 ? "g" : nil)
    }

    /// The plan SQLite chooses for `sql`, its `?` parameters bound to NULL.
    private func plan(_ sql: String, _ db: Database) throws -> String {
        let nulls = StatementArguments(Array(repeating: nil as String?, count: sql.filter { $0 == "?" }.count))
        return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: nulls)
            .map { $0["detail"] as String }.joined(separator: "\n")
    }

    @Test func pagesUseIndexesOnly() throws {
        try withStore { store, _ in
            try store.pool.read { db in
                for filter in Self.filters {
                    let sql = CallLogSQLFilter(viewer: "alice", filter: filter)
                    let positions: [CallLogQuery.Position] = [.page(2), .cursor(.olderThan(5)), .cursor(.newerThan(5))]
                    for query in [sql.summarySQL(comparison: ">=")] + positions.map(sql.rowsSQL(for:)) {
                        let plan = try plan(query, db)
                        #expect(!plan.contains("SCAN") && !plan.contains("TEMP B-TREE"), "\(filter): \(plan)")
                        #expect(plan.contains("calls_by_group") == (filter.group != nil), "\(filter): \(plan)")
                    }
                }
            }
        }
    }

    @Test func theOtherReadsUseIndexesOnly() throws {
        try withStore { store, _ in
            try store.pool.read { db in
                let open = try plan("SELECT id FROM calls WHERE status IN ('initiated', 'ongoing') ORDER BY id", db)
                #expect(open.contains("calls_open") && !open.contains("TEMP B-TREE"))
                let session = try plan("""
                    SELECT c.id FROM calls AS c JOIN call_members AS m ON m.call_id = c.id AND m.uid = ?
                    WHERE c.session_id = ? ORDER BY c.id DESC
                    """, db)
                #expect(session.contains("calls_by_session") && !session.contains("TEMP B-TREE"))
            }
        }
    }
}
