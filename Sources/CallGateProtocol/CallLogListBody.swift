/// The body of `GET /v3.0/calls`: one page of the asking user's calls, newest first.
public struct CallLogListBody: Codable, Hashable, Sendable {
    /// The calls of this page.
    public var data: [CallLog]
    /// Pagination and cursors.
    public var meta: CallLogListMeta

    /// Makes a list body.
    public init(data: [CallLog], meta: CallLogListMeta) {
        self.data = data
        self.meta = meta
    }
}
