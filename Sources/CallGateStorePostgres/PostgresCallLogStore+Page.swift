import CallGateCore
import PostgresNIO

extension PostgresCallLogStore {
    /// One page of the calls `query.viewer` was part of, newest first, by the rules of
    /// `CallLogPaging`: one query counts the matching calls and finds where the page starts, a
    /// second reads the page's rows, both in one repeatable-read snapshot so they agree while the
    /// writer commits.
    public func page(_ query: CallLogQuery) throws -> CallLogPage {
        let size = max(1, query.perPage)
        let filter = PostgresCallLogFilter(viewer: query.viewer, filter: query.filter)
        return try blocking { [self] in
            try await transaction("reading a page of calls") { [self] connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                var (comparison, pivot) = (">=", Int64(0))
                switch query.position {
                case .page: break
                case .cursor(.olderThan(let id)): pivot = id
                case .cursor(.newerThan(let id)): (comparison, pivot) = (">", id)
                }
                var (total, newer, oldest) = (0, 0, Int64?.none)
                for try await (count, newerCount, minimum) in try await connection.query(
                    filter.summary(comparison: comparison, pivot: pivot), logger: logger
                ).decode((Int, Int, Int64?).self) {
                    (total, newer, oldest) = (count, newerCount, minimum)
                }
                let start: Int
                var records: [CallLogRecord] = []
                switch query.position {
                case .page(let number):
                    let (offset, overflow) = (max(1, number) - 1).multipliedReportingOverflow(by: size)
                    start = overflow ? total : min(total, offset)
                    if start < total {
                        records = try await self.records(
                            connection.query(filter.rows(for: query.position, size: size, offset: start), logger: logger),
                            on: connection)
                    }
                case .cursor(.olderThan):
                    start = newer
                    if start < total {
                        records = try await self.records(
                            connection.query(filter.rows(for: query.position, size: size, offset: 0), logger: logger),
                            on: connection)
                    }
                case .cursor(.newerThan):
                    start = max(0, newer - size)
                    if newer > 0 {
                        records = try await self.records(
                            connection.query(filter.rows(for: query.position, size: size, offset: 0), logger: logger),
                            on: connection
                        ).reversed()
                    }
                }
                return CallLogPaging.page(
                    records, start: start, size: size, total: total, oldest: oldest, position: query.position)
            }
        }
    }
}
