import CallGateCore
import CallGateProtocol
import Foundation

/// The call log API, `GET /v3.0/calls`, `GET /v3.0/calls/{sessionId}` and
/// `GET /v3.0/calls/{sessionId}/timeline`, as a function from
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
        var rest = request.path.dropFirst(listPath.count)
        let wantsTimeline = rest.hasSuffix(timelineSuffix) && rest.count > timelineSuffix.count
        if wantsTimeline {
            rest = rest.dropLast(timelineSuffix.count)
        }
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
        return wantsTimeline ? .timeline(token: token, sessionId: sessionId) : .detail(token: token, sessionId: sessionId)
    }

    /// What follows a session id in the path of its timeline.
    private static let timelineSuffix = "/timeline"

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

/// What the transport does with a call log request, as decided by `CallLogRouter.route(_:)`.
public enum CallLogRoute: Sendable {
    /// Write this response now (a bad request, a missing token, a wrong method).
    case respond(HTTPResponse)
    /// Check `token`, then answer with a page of its user's calls.
    case list(token: String, CallLogListRequest)
    /// Check `token`, then answer with its user's calls under `sessionId`.
    case detail(token: String, sessionId: String)
    /// Check `token`, then answer with the timelines of its user's calls under `sessionId`.
    case timeline(token: String, sessionId: String)
}

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

/// Reads the query items of `GET /v3.0/calls` into a `CallLogListRequest`, naming the parameter
/// in every error. Unknown parameters are ignored (SDKs send their own); a known one given twice
/// or empty is an error. A `cursor` wins over `page`. Any thread.
enum CallLogQueryParser {
    /// The largest `perPage`.
    static let maxPerPage = 100
    /// The largest `page`, so offsets stay far from overflow.
    static let maxPage = 1_000_000

    /// The request the query `items` describe.
    static func parse(_ items: [String]) throws(FieldError) -> CallLogListRequest {
        let values = try pairs(items)
        var request = CallLogListRequest()
        if let text = values["perPage"] {
            request.perPage = try integer(text, field: "perPage", in: 1...maxPerPage)
        }
        if let text = values["page"] {
            request.position = .page(try integer(text, field: "page", in: 1...maxPage))
        }
        if let text = values["cursor"] {
            guard let cursor = CallLogCursor(encoded: text) else {
                throw FieldError(field: "cursor", rule: "not a cursor this API returned")
            }
            request.position = .cursor(cursor)
        }
        request.filter.category = try values["mode"].map { text throws(FieldError) in try choice(text, field: "mode") }
        request.filter.callType = try values["type"].map { text throws(FieldError) in try choice(text, field: "type") }
        request.filter.status = try values["status"].map { text throws(FieldError) in try choice(text, field: "status") }
        request.filter.direction = try values["direction"].map { text throws(FieldError) in
            try choice(text, field: "direction")
        }
        if let text = values["hasRecording"] {
            switch text {
            case "1", "true": request.filter.hasRecording = true
            case "0", "false": request.filter.hasRecording = false
            default: throw FieldError(field: "hasRecording", rule: "expected 1 or 0")
            }
        }
        request.filter.withUser = try values["uid"].map { text throws(FieldError) in
            try FieldError.checkID(text, field: "uid")
            return text
        }
        request.filter.group = try values["guid"].map { text throws(FieldError) in
            try FieldError.checkID(text, field: "guid")
            return text
        }
        return request
    }

    /// The known parameters of `items` (decoded already, see `HTTPRequest.queryItems`); unknown
    /// ones are skipped.
    private static func pairs(_ items: [String]) throws(FieldError) -> [String: String] {
        let known: Set = ["page", "perPage", "cursor", "mode", "type", "status", "direction", "hasRecording", "uid", "guid"]
        var values: [String: String] = [:]
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard known.contains(name) else { continue }
            guard parts.count == 2, !parts[1].isEmpty else {
                throw FieldError(field: name, rule: "must have a value")
            }
            guard values.updateValue(String(parts[1]), forKey: name) == nil else {
                throw FieldError(field: name, rule: "given more than once")
            }
        }
        return values
    }

    private static func integer(_ text: String, field: String, in range: ClosedRange<Int>) throws(FieldError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw FieldError(field: field, rule: "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, field: String
    ) throws(FieldError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw FieldError(field: field, rule: "expected one of \(allowed)")
        }
        return value
    }
}
