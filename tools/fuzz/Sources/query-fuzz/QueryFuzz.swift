// libFuzzer target `query`: HTTP request routing and query parsing in CallGateServer, the way
// GatewayService+HTTP.swift drives it: paths CallLogRouter handles go to CallLogRouter.route
// (and through it to CallLogQueryParser), everything else to AdminRouter.route.
//
// The input is a small HTTP request, parsed loosely by this harness (libwebsockets does the real
// framing, which is not under test here):
//
//     METHOD SP TARGET [SP anything] LF
//     Name: value LF          (any number of header lines, CR before LF is dropped)
//     LF
//     body bytes
//
// TARGET splits at the first `?` into path and query. When the request has neither `authtoken`
// nor `Authorization`, the harness adds `authtoken: fuzz-user-token`, so call log requests reach
// the query parser instead of stopping at 401. The admin key is `fuzz-admin-key`.
//
// Properties checked (each failure traps):
//  1. Neither router traps, whatever the request.
//  2. Call log: a `list` route has perPage 1...100, a page 1...1_000_000 or a cursor whose text
//     form reads back the same, valid uid/guid filters and a non-empty, trimmed token; and
//     parsing is a fixed point: the request rebuilt as a canonical query string parses to the
//     same CallLogListRequest. A `detail` route has a valid session id. A method other than GET
//     gets 405.
//  3. Admin: any /v1 request without the exact admin key gets 401; every response has a status
//     the API documents and, except 204, a JSON object body; a mint route carries a valid
//     TokenRequest; a recording route a valid session id and a rid of the form <sessionId>-r<n>.
import CallGateCore
import CallGateProtocol
import CallGateServer
import Foundation
import FuzzSupport

private let adminKey = "fuzz-admin-key"
private let defaultUserToken = "fuzz-user-token"

/// One token service for every run: Sendable, and only the mint route (never taken here) uses it.
private let tokens: TokenService = runBlocking { try! await TokenService(secret: "fuzz-secret") }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let request = parseRequest(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    if CallLogRouter.handles(request.path) {
        checkCallLog(request)
    } else {
        checkAdmin(request)
    }
    return 0
}

// MARK: - Input

private func parseRequest(_ input: UnsafeBufferPointer<UInt8>) -> HTTPRequest? {
    var lines: [String] = []
    var index = input.startIndex
    var bodyStart = input.endIndex
    while index < input.endIndex {
        let end = input[index...].firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
        var line = input[index..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        index = end < input.endIndex ? end + 1 : end
        if line.isEmpty && !lines.isEmpty {
            bodyStart = index
            break
        }
        lines.append(String(decoding: line, as: UTF8.self))
    }
    guard let requestLine = lines.first else { return nil }
    let parts = requestLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2 else { return nil }
    let target = parts[1]
    let path: String
    var queryItems: [String] = []
    if let mark = target.firstIndex(of: "?") {
        path = String(target[..<mark])
        queryItems = target[target.index(after: mark)...].split { $0 == "&" || $0 == ";" }.map(String.init)
    } else {
        path = String(target)
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if headers[name] == nil { headers[name] = value }
    }
    let lowered = Set(headers.keys.map { $0.lowercased() })
    if !lowered.contains("authtoken") && !lowered.contains("authorization") {
        headers["authtoken"] = defaultUserToken
    }
    let body = bodyStart < input.endIndex ? Array(input[bodyStart...]) : []
    return HTTPRequest(method: HTTPMethod(String(parts[0])), path: path, queryItems: queryItems, headers: headers, body: body)
}

// MARK: - Call log

private func checkCallLog(_ request: HTTPRequest) {
    let route = CallLogRouter.route(request)
    switch route {
    case .respond(let response):
        checkResponse(response, allowed: [400, 401, 404, 405])
        if request.method != .get && response.status != 405 {
            fatalError("call log: \(request.method.name) answered \(response.status), expected 405")
        }
    case .list(let token, let list):
        checkToken(token)
        guard request.method == .get, request.path == CallLogRouter.listPath else {
            fatalError("call log: list route for \(request.method.name) \(request.path)")
        }
        checkList(list)
        let canonical = canonicalQuery(list)
        let again = CallLogRouter.route(HTTPRequest(
            method: .get, path: CallLogRouter.listPath, queryItems: canonical, headers: ["authtoken": token]))
        guard case .list(_, let reparsed) = again else {
            fatalError("call log: canonical query '\(canonical)' of \(list) is refused: \(again)")
        }
        guard reparsed == list else {
            fatalError("call log: \(request.queryItems) parses to \(list), its canonical form \(canonical) to \(reparsed)")
        }
    case .detail(let token, let sessionId):
        checkToken(token)
        guard SessionIDFormat.isValid(sessionId) else {
            fatalError("call log: detail route with invalid session id \(sessionId.debugDescription)")
        }
    }
}

private func checkToken(_ token: String) {
    guard !token.isEmpty, token == token.trimmingCharacters(in: .whitespaces) else {
        fatalError("call log: routed with token \(token.debugDescription)")
    }
}

private func checkList(_ list: CallLogListRequest) {
    guard (1...100).contains(list.perPage) else { fatalError("call log: perPage \(list.perPage)") }
    switch list.position {
    case .page(let page):
        guard (1...1_000_000).contains(page) else { fatalError("call log: page \(page)") }
    case .cursor(let cursor):
        guard CallLogCursor(encoded: cursor.encoded) == cursor else {
            fatalError("call log: cursor \(cursor) does not read back from \(cursor.encoded)")
        }
        switch cursor {
        case .olderThan(let id), .newerThan(let id):
            guard id >= 0 else { fatalError("call log: negative cursor id \(id)") }
        }
    }
    if let uid = list.filter.withUser, !FieldRules.isValidID(uid) {
        fatalError("call log: invalid uid filter \(uid.debugDescription)")
    }
    if let guid = list.filter.group, !FieldRules.isValidID(guid) {
        fatalError("call log: invalid guid filter \(guid.debugDescription)")
    }
}

/// The query items (decoded, as libwebsockets hands them over) a well-behaved client's query
/// for `list` arrives as.
private func canonicalQuery(_ list: CallLogListRequest) -> [String] {
    var items = ["perPage=\(list.perPage)"]
    switch list.position {
    case .page(let page): items.append("page=\(page)")
    case .cursor(let cursor): items.append("cursor=\(cursor.encoded)")
    }
    let filter = list.filter
    if let value = filter.category { items.append("mode=\(value.rawValue)") }
    if let value = filter.callType { items.append("type=\(value.rawValue)") }
    if let value = filter.status { items.append("status=\(value.rawValue)") }
    if let value = filter.direction { items.append("direction=\(value.rawValue)") }
    items.append("hasRecording=\(filter.hasRecording ? 1 : 0)")
    if let value = filter.withUser { items.append("uid=\(value)") }
    if let value = filter.group { items.append("guid=\(value)") }
    return items
}

// MARK: - Admin

private func checkAdmin(_ request: HTTPRequest) {
    let store = InMemoryGroupStore([GroupRecord(guid: "team", name: "Team", members: ["alice", "bob"])])
    let router = AdminRouter(groups: store, adminKey: adminKey, tokens: tokens)
    let route = router.route(request)
    let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
    let isV1 = segments.count >= 2 && segments[0].isEmpty && segments[1] == "v1"
    if isV1 && !hasAdminKey(request) {
        guard case .respond(let response) = route, response.status == 401 else {
            fatalError("admin: \(request.method.name) \(request.path) without the admin key was not refused: \(route)")
        }
    }
    switch route {
    case .respond(let response):
        checkResponse(response, allowed: [200, 204, 400, 401, 404, 405, 413])
    case .mintToken(let tokenRequest):
        guard request.method == .post, request.path == "/v1/tokens" else {
            fatalError("admin: mint route for \(request.method.name) \(request.path)")
        }
        let user = tokenRequest.user
        guard FieldRules.isValidID(user.uid), FieldRules.isValidName(user.name),
              (1...TokenRequest.maxTTL).contains(tokenRequest.ttl)
        else { fatalError("admin: invalid token request \(tokenRequest)") }
    case .attachRecording(let sessionId, let rid, let url, let startedAt):
        guard request.method == .post, SessionIDFormat.isValid(sessionId), rid.hasPrefix(sessionId + "-r"),
              !url.isEmpty, (startedAt ?? 0) >= 0
        else { fatalError("admin: invalid recording route \(sessionId.debugDescription) \(rid.debugDescription) \(url.debugDescription)") }
    }
}

/// The reference for admin authorization: `Authorization: <scheme> <key>` with the exact key.
private func hasAdminKey(_ request: HTTPRequest) -> Bool {
    guard let header = request.headers["authorization"] else { return false }
    return header.trimmingCharacters(in: .whitespaces).hasSuffix(adminKey)
}

private func checkResponse(_ response: HTTPResponse, allowed: Set<Int>) {
    guard allowed.contains(response.status) else {
        fatalError("response status \(response.status) is not one of \(allowed.sorted())")
    }
    if response.status == 204 {
        guard response.body.isEmpty else { fatalError("204 with a body") }
        return
    }
    guard response.contentType == HTTPResponse.jsonContentType,
          (try? JSONSerialization.jsonObject(with: Data(response.body))) is [String: Any]
    else {
        fatalError("\(response.status) body is not a JSON object: \(String(decoding: response.body, as: UTF8.self))")
    }
}
