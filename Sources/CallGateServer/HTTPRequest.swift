/// A complete HTTP request as the transport read it, independent of libwebsockets.
///
/// The transport fills it on the service thread and hands it to a router; a plain value.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path without the query, percent-decoded by libwebsockets (`/v1/groups/team%3A1`
    /// arrives as `/v1/groups/team:1`); routers use it as it is.
    public var path: String
    /// The query's `name=value` items as libwebsockets decoded them: split at unencoded `&`
    /// and `;`, `%XX` and `+` decoded (an encoded `=` in a name became `_`, so the first `=` of
    /// an item separates name and value). The admin routes ignore it.
    public var queryItems: [String]
    /// Header values by lowercased name.
    public var headers: [String: String]
    /// The body bytes (empty when there is none).
    public var body: [UInt8]

    /// A request; header names are lowercased here, and for a repeated name the first value wins.
    public init(
        method: HTTPMethod, path: String, queryItems: [String] = [],
        headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}
