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
