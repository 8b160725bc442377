import Foundation

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

/// An HTTP request method. The admin API uses five; everything else is ``other(_:)`` and gets 405.
///
/// A plain value; any thread.
public enum HTTPMethod: Equatable, Hashable, Sendable {
    /// The methods the admin API routes.
    case get, put, post, patch, delete
    /// Any other method, with its name as received (methods are case-sensitive, RFC 9110 9.1).
    case other(String)

    /// The method called `name` on the request line.
    public init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "PUT": self = .put
        case "POST": self = .post
        case "PATCH": self = .patch
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
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .other(let name): name
        }
    }
}

/// A complete HTTP response for the transport to write, independent of libwebsockets.
///
/// Built on any thread; a plain value.
public struct HTTPResponse: Sendable {
    /// The media type of every JSON body.
    public static let jsonContentType = "application/json"

    /// The status code, e.g. 200 or 404.
    public var status: Int
    /// The `Content-Type`, or nil when there is no body.
    public var contentType: String?
    /// Extra headers beyond `Content-Type` and `Content-Length`, e.g. `Allow` on a 405.
    public var headers: [(String, String)]
    /// The body bytes; empty for 204.
    public var body: [UInt8]

    /// A response with these parts as given.
    public init(status: Int, contentType: String? = nil, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// `value` as a compact JSON body with `status`; a value that fails to encode gives a 500.
    public static func json(_ status: Int, _ value: some Encodable, headers: [(String, String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(value) else {
            return HTTPResponse(status: 500, contentType: jsonContentType, body: Array(encodingFailureBody.utf8))
        }
        return HTTPResponse(status: status, contentType: jsonContentType, headers: headers, body: Array(body))
    }

    /// An error with the `{"error": {"code", "message"}}` body.
    public static func error(
        _ status: Int, _ code: HTTPErrorCode, _ message: String, headers: [(String, String)] = []
    ) -> HTTPResponse {
        json(status, HTTPErrorBody(code: code, message: message), headers: headers)
    }

    /// 204 with no body.
    public static let noContent = HTTPResponse(status: 204)

    /// The fixed 500 body, written by hand because encoding just failed.
    private static let encodingFailureBody = #"{"error":{"code":"ERR_INTERNAL","message":"the response could not be encoded"}}"#

    /// This response with `extra` headers after its own.
    public func adding(_ extra: [(String, String)]) -> HTTPResponse {
        var response = self
        response.headers += extra
        return response
    }

    /// The value of the header called `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// The JSON body of every HTTP error: `{"error": {"code": string, "message": string}}`.
public struct HTTPErrorBody: Codable, Equatable, Sendable {
    /// The inner `error` object.
    public struct Detail: Codable, Equatable, Sendable {
        /// What kind of error, for programs.
        public var code: HTTPErrorCode
        /// What went wrong, for people; names the field for 400.
        public var message: String
    }

    /// The `error` object.
    public var error: Detail

    /// A body for `code` and `message`.
    public init(code: HTTPErrorCode, message: String) {
        self.error = Detail(code: code, message: message)
    }
}

/// The `error.code` values of HTTP error bodies (`{"error": {"code", "message"}}`).
public enum HTTPErrorCode: String, Codable, Sendable {
    /// 401: the admin key, or a user's token for the call log API, is missing or refused.
    case unauthorized = "ERR_UNAUTHORIZED"
    /// 400: bad JSON, a missing or wrong-typed field, or an invalid value.
    case badRequest = "ERR_BAD_REQUEST"
    /// 404: the group does not exist.
    case groupNotFound = "ERR_GROUP_NOT_FOUND"
    /// 404: no route has this path, or the user is not a member of the group.
    case notFound = "ERR_NOT_FOUND"
    /// 409: a recording URL for a recording id that several meetings under the session id have;
    /// `startedAt` in the body picks one.
    case ambiguousRecording = "ERR_AMBIGUOUS_RECORDING"
    /// 405: the path exists but not with this method; the response carries `Allow`.
    case methodNotAllowed = "ERR_METHOD_NOT_ALLOWED"
    /// 413: the body is over the size limit.
    case payloadTooLarge = "ERR_PAYLOAD_TOO_LARGE"
    /// 403: a WebSocket upgrade, or a CORS preflight to the call log API, from a browser Origin
    /// that `--allowed-origin` does not list.
    case originNotAllowed = "ERR_ORIGIN_NOT_ALLOWED"
    /// 429: a WebSocket upgrade from a client address that has `--max-connections-per-address` open.
    case tooManyConnections = "ERR_TOO_MANY_CONNECTIONS"
    /// 503: a WebSocket upgrade while the process holds `--max-connections` sockets.
    case serverFull = "ERR_SERVER_FULL"
    /// 500: the server failed to produce a response; not caused by the request.
    case internalError = "ERR_INTERNAL"
    /// 503: `GET /readyz` while the call log store does not accept writes.
    case notReady = "ERR_NOT_READY"
    /// 503: a group change while the call log store is behind (see `ErrorCode.storeUnavailable`).
    case storeUnavailable = "ERR_STORE_UNAVAILABLE"
    /// 409: `POST /v1/calls` for an initiator who is in a call already.
    case callInProgress = "ERROR_CALL_IN_PROGRESS"
    /// 409: an op on a call that is over; the message says how it ended.
    case callFinished = "ERR_CALL_FINISHED"
    /// 503: cluster mode, an op on calls while this node is cut off from the cluster (or its
    /// call was taken over meanwhile).
    case clusterUnavailable = "ERR_CLUSTER_UNAVAILABLE"
    /// 504: cluster mode, the node that owns the call did not answer in time, or left.
    case callOwnerUnreachable = "ERR_CALL_OWNER_UNREACHABLE"
    /// 429: cluster mode, between nodes: holding a call for a waiting one passed the user's
    /// session events (no admin route answers it).
    case rateLimited = "ERR_RATE_LIMITED"
}
