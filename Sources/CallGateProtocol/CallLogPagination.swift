/// Where a page of call logs sits in the whole list.
public struct CallLogPagination: Codable, Hashable, Sendable {
    /// How many calls match the filters.
    public var total: Int
    /// The page size asked for.
    public var perPage: Int
    /// The number of this page, from 1.
    public var currentPage: Int
    /// How many pages of `perPage` the matching calls fill (0 when none match).
    public var totalPages: Int

    /// Makes a pagination value.
    public init(total: Int, perPage: Int, currentPage: Int, totalPages: Int) {
        self.total = total
        self.perPage = perPage
        self.currentPage = currentPage
        self.totalPages = totalPages
    }
}
