/// The `meta` member of a call log list: numbered pagination and cursors.
public struct CallLogListMeta: Codable, Hashable, Sendable {
    /// Counts and page numbers.
    public var pagination: CallLogPagination
    /// Where the next and previous pages start.
    public var cursor: CallLogCursors

    /// Makes a meta value.
    public init(pagination: CallLogPagination, cursor: CallLogCursors) {
        self.pagination = pagination
        self.cursor = cursor
    }
}
