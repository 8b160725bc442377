import CallGateCore

/// The parameters of `GET /v3.0/calls`, validated; the viewer comes from the token later.
public struct CallLogListRequest: Hashable, Sendable {
    /// The filters.
    public var filter: CallLogFilter
    /// The page size, 1 to 100.
    public var perPage: Int
    /// A page number or a cursor.
    public var position: CallLogQuery.Position

    /// Makes a request.
    public init(filter: CallLogFilter = .init(), perPage: Int = 30, position: CallLogQuery.Position = .page(1)) {
        self.filter = filter
        self.perPage = perPage
        self.position = position
    }

    /// The store query for `viewer`.
    public func query(for viewer: String) -> CallLogQuery {
        CallLogQuery(viewer: viewer, filter: filter, perPage: perPage, position: position)
    }
}
