import Foundation

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

    /// The value of the header called `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
