/// A complete HTTP request as the transport read it, independent of libwebsockets.
///
/// The transport fills it on the service thread and hands it to a router; a plain value.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path without the query, still percent-encoded (e.g. `/v1/groups/team%3A1`).
    public var path: String
    /// What followed `?` in the target, if anything; the admin routes ignore it.
    public var query: String?
    /// Header values by lowercased name.
    public var headers: [String: String]
    /// The body bytes (empty when there is none).
    public var body: [UInt8]

    /// A request; header names are lowercased here, and for a repeated name the first value wins.
    public init(
        method: HTTPMethod, path: String, query: String? = nil,
        headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}
