/// An HTTP request method. The admin API uses four; everything else is ``other(_:)`` and gets 405.
///
/// A plain value; any thread.
public enum HTTPMethod: Equatable, Hashable, Sendable {
    /// The methods the admin API routes.
    case get, put, post, delete
    /// Any other method, with its name as received (methods are case-sensitive, RFC 9110 9.1).
    case other(String)

    /// The method called `name` on the request line.
    public init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "PUT": self = .put
        case "POST": self = .post
        case "DELETE": self = .delete
        default: self = .other(name)
        }
    }

    /// The name as it appears on the request line and in an `Allow` header.
    public var name: String {
        switch self {
        case .get: "GET"
        case .put: "PUT"
        case .post: "POST"
        case .delete: "DELETE"
        case .other(let name): name
        }
    }
}
