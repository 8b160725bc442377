import CallGateCore
import Foundation

/// The call log API, `GET /v3.0/calls` and `GET /v3.0/calls/{sessionId}`, as a function from
/// request to route: it finds the user's token and validates every parameter, so the transport
/// only checks the token and reads the store. Any thread.
public enum CallLogRouter {
    /// The path of the call list; details are below it.
    public static let listPath = "/v3.0/calls"

    /// Whether `path` belongs to this API (and not to the admin one).
    public static func handles(_ path: String) -> Bool {
        path == listPath || path.hasPrefix(listPath + "/")
    }

    /// Decides what to do with `request`. Never traps, whatever the input.
    public static func route(_ request: HTTPRequest) -> CallLogRoute {
        guard request.method == .get else {
            return .respond(.error(405, .methodNotAllowed, "method not allowed here; allowed: GET", headers: [("Allow", "GET")]))
        }
        let rest = request.path.dropFirst(listPath.count)
        let sessionSegment = rest.isEmpty ? nil : rest.dropFirst()
        if let sessionSegment, sessionSegment.isEmpty || sessionSegment.contains("/") {
            return .respond(.error(404, .notFound, "no route for this path"))
        }
        guard let token = userToken(in: request.headers) else {
            return .respond(unauthorized("send the user's token in the authToken header or as 'Authorization: Bearer <token>'"))
        }
        guard let sessionSegment else {
            do {
                return .list(token: token, try CallLogQueryParser.parse(request.queryItems))
            } catch {
                return .respond(.error(400, .badRequest, error.message))
            }
        }
        let sessionId = String(sessionSegment)
        guard SessionIDFormat.isValid(sessionId) else {
            return .respond(.error(400, .badRequest, "sessionId: must be 1 to 128 characters of A-Z a-z 0-9 . _ : -"))
        }
        return .detail(token: token, sessionId: sessionId)
    }

    /// The 401 for a missing or refused token.
    public static func unauthorized(_ message: String) -> HTTPResponse {
        .error(401, .unauthorized, message, headers: [("WWW-Authenticate", "Bearer")])
    }

    /// The token from `authToken` (as the calling SDKs send it) or `Authorization: Bearer`.
    private static func userToken(in headers: [String: String]) -> String? {
        if let token = headers["authtoken"]?.trimmingCharacters(in: .whitespaces), !token.isEmpty {
            return token
        }
        guard let header = headers["authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
