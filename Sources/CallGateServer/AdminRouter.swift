import CallGateCore
import CallGateProtocol
import Foundation

/// The admin HTTP API (groups, tokens, health) as a function from request to response, so the
/// transport only moves bytes.
///
/// Service thread only: it reads and writes the group store, which the Core also uses there.
/// The one slow route, `POST /v1/tokens`, comes back as ``AdminRoute/mintToken(_:)`` for the
/// caller to finish off-thread with ``tokenResponse(for:using:now:)``.
///
/// Paths are matched segment by segment on the raw (percent-encoded) path; `{guid}` and `{uid}`
/// are percent-decoded and then validated. A trailing slash or an empty segment is not found.
/// Every `/v1` request is authorized before its route is looked up, so without the key nothing
/// about the routes is revealed.
public final class AdminRouter {
    /// Bodies longer than this get 413; the transport may stop reading at this size.
    public static let maxBodySize = 64 * 1024

    /// The token service the mint route uses; Sendable, so the caller can take it off-thread.
    public let tokens: TokenService
    private let groups: any GroupStore
    private let adminKey: [UInt8]
    /// Whether webhook endpoints may name addresses inside the network (`WebhookAddressRules`).
    private let allowsPrivateWebhooks: Bool

    /// A router over `groups` that admits requests bearing `adminKey`; webhook endpoint URLs may
    /// point inside the network when `allowsPrivateWebhooks`.
    ///
    /// An empty `adminKey` disables the `/v1` routes: every request to them gets 401.
    public init(groups: any GroupStore, adminKey: String, tokens: TokenService, allowsPrivateWebhooks: Bool) {
        self.groups = groups
        self.adminKey = Array(adminKey.utf8)
        self.tokens = tokens
        self.allowsPrivateWebhooks = allowsPrivateWebhooks
    }

    /// Decides what to do with `request`; a group change or a recording URL is refused with 503
    /// `ERR_STORE_UNAVAILABLE` and `backlog` as its message when `backlog` is given (the store is
    /// behind). Never traps, whatever the input.
    public func route(_ request: HTTPRequest, refusingChangesFor backlog: String? = nil) -> AdminRoute {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments[0].isEmpty else { return .respond(Self.notFound) }
        if segments.count == 2, segments[1] == "healthz" {
            return .respond(health(request.method))
        }
        guard segments[1] == "v1" else { return .respond(Self.notFound) }
        guard isAuthorized(request) else {
            return .respond(
                .error(401, .unauthorized, "a valid 'Authorization: Bearer <admin key>' header is required",
                       headers: [("WWW-Authenticate", "Bearer")]))
        }
        guard let endpoint = AdminEndpoint(segments.dropFirst(2)) else { return .respond(Self.notFound) }
        guard endpoint.allowedMethods.contains(request.method) else {
            return .respond(Self.methodNotAllowed(endpoint.allowedMethods))
        }
        guard request.body.count <= Self.maxBodySize else {
            return .respond(.error(413, .payloadTooLarge, "body: must be at most \(Self.maxBodySize) bytes"))
        }
        if let backlog, endpoint.writesStore(request.method) {
            return .respond(.error(503, .storeUnavailable, backlog))
        }
        do {
            return try handle(endpoint, request)
        } catch {
            return .respond(.error(400, .badRequest, error.message))
        }
    }

    /// Mints the token `request` asks for and builds the `{"token", "expiresAt"}` response; a
    /// gateway whose connection tokens are verified with public keys only mints none (404: the
    /// backend signs them with its private key).
    ///
    /// Any thread: call it off the service thread, then write the response back on it.
    public static func tokenResponse(
        for request: TokenRequest, using tokens: TokenService, now: Date = .now
    ) async -> HTTPResponse {
        guard tokens.secretVerifiesConnections else {
            return .error(
                404, .notFound,
                "this gateway verifies connection tokens with public keys only (no --jwt-secret): sign them with your private key")
        }
        do {
            let minted = try await tokens.mint(user: request.user, ttl: request.ttl, now: now)
            return .json(200, MintedToken(token: minted.token, expiresAt: minted.expiresAt))
        } catch {
            return .error(500, .internalError, "the token could not be minted")
        }
    }

    private func health(_ method: HTTPMethod) -> HTTPResponse {
        guard method == .get else { return Self.methodNotAllowed([.get]) }
        return .json(200, ["status": "ok"])
    }

    /// Runs the endpoint; the method is already one of its `allowedMethods`, so the wildcard
    /// cases each stand for that endpoint's remaining method.
    private func handle(_ endpoint: AdminEndpoint, _ request: HTTPRequest) throws(FieldError) -> AdminRoute {
        switch (endpoint, request.method) {
        case (.group(let rawGUID), .get):
            let guid = try Self.parameter(rawGUID, field: "guid")
            guard let record = groups.group(guid) else { return .respond(Self.groupNotFound(guid)) }
            return .respond(.json(200, GroupDetail(record)))
        case (.group(let rawGUID), .put):
            let guid = try Self.parameter(rawGUID, field: "guid")
            let body = try Self.decode(GroupBody.self, from: request.body)
            try body.validate()
            let record = GroupRecord(guid: guid, name: body.name, icon: body.icon, members: body.members)
            groups.put(record)
            return .respond(.json(200, GroupDetail(record)))
        case (.group(let rawGUID), _):
            let guid = try Self.parameter(rawGUID, field: "guid")
            return .respond(groups.delete(guid) ? .noContent : Self.groupNotFound(guid))
        case (.members(let rawGUID), _):
            let guid = try Self.parameter(rawGUID, field: "guid")
            let body = try Self.decode(MembersBody.self, from: request.body)
            try body.validate()
            guard var record = groups.group(guid) else { return .respond(Self.groupNotFound(guid)) }
            record.add(body.uids)
            groups.put(record)
            return .respond(.json(200, GroupDetail(record)))
        case (.member(let rawGUID, let rawUID), _):
            let guid = try Self.parameter(rawGUID, field: "guid")
            let uid = try Self.parameter(rawUID, field: "uid")
            guard var record = groups.group(guid) else { return .respond(Self.groupNotFound(guid)) }
            guard record.remove(uid) else {
                return .respond(.error(404, .notFound, "user '\(uid)' is not a member of group '\(guid)'"))
            }
            groups.put(record)
            return .respond(.json(200, GroupDetail(record)))
        case (.tokens, _):
            return .mintToken(try Self.decode(TokenBody.self, from: request.body).validated())
        case (.calls, _), (.callEnd, _), (.participantMute, _), (.participant, _), (.presence, _):
            guard let control = try CallControlRequest.parse(endpoint, request) else { return .respond(Self.notFound) }
            return .callControl(control)
        case (.webhooks, _), (.webhook, _), (.webhookDeliveries, _), (.webhookRedeliver, _):
            guard let webhookRequest = try WebhookAdminRequest.parse(
                endpoint, request, allowsPrivateNetworks: allowsPrivateWebhooks)
            else { return .respond(Self.notFound) }
            return .webhooks(webhookRequest)
        case (.drain, let method):
            return .drain(begin: method == .post)
        case (.recording(let rawSessionID, let rawRID), _):
            let sessionId = try Self.sessionID(rawSessionID)
            let rid = String(rawRID)
            guard Self.isRecordingID(rid, of: sessionId) else {
                throw FieldError(field: "rid", rule: "expected <sessionId>-r<n>, as the call log lists it")
            }
            let body = try Self.decode(RecordingURLBody.self, from: request.body)
            try body.validate()
            return .attachRecording(sessionId: sessionId, rid: rid, url: body.recordingUrl, startedAt: body.startedAt)
        }
    }

    /// The answer to a recording URL attachment: the recording as attached, 404 when no call
    /// under `sessionId` has recording `rid`, 409 when several do (the URL went nowhere).
    public static func recordingResponse(_ match: RecordingMatch, sessionId: String, rid: String, url: String) -> HTTPResponse {
        switch match {
        case .attached:
            .json(200, RecordingAttachment(recordingUrl: url, sessionId: sessionId, rid: rid))
        case .notFound:
            .error(404, .notFound, "no call of session '\(sessionId)' has recording '\(rid)' (with that startedAt)")
        case .ambiguous:
            .error(
                409, .ambiguousRecording,
                "several meetings under session '\(sessionId)' have a recording '\(rid)': send its startedAt to pick one")
        }
    }

    /// Whether `rid` has the shape of a recording id of `sessionId`: `<sessionId>-r<n>`.
    private static func isRecordingID(_ rid: String, of sessionId: String) -> Bool {
        let prefix = sessionId + "-r"
        guard rid.hasPrefix(prefix) else { return false }
        let number = rid.dropFirst(prefix.count)
        return (1...9).contains(number.count) && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
            && number.first != "0"
    }

    /// Whether the request carries `Authorization: Bearer <admin key>` (scheme case-insensitive).
    private func isAuthorized(_ request: HTTPRequest) -> Bool {
        guard !adminKey.isEmpty, let header = request.headers["authorization"] else { return false }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        return ConstantTime.equals(parts[1].trimmingCharacters(in: .whitespaces).utf8, adminKey)
    }

    /// A validated guid or uid from a path segment. libwebsockets percent-decodes the path
    /// before the gateway sees it, so the segment is used as it is: decoding it again would turn
    /// `%2541` into `A`.
    static func parameter(_ raw: Substring, field: String) throws(FieldError) -> String {
        let value = String(raw)
        try FieldError.checkID(value, field: field)
        return value
    }

    /// A validated session id from a path segment (used as it is, as `parameter` says).
    static func sessionID(_ raw: Substring) throws(FieldError) -> String {
        let sessionId = String(raw)
        guard SessionIDFormat.isValid(sessionId) else {
            throw FieldError(field: "sessionId", rule: "must be 1 to 128 characters of A-Z a-z 0-9 . _ : -")
        }
        return sessionId
    }

    /// Decodes a JSON body, naming the field at fault when it does not fit. A body nesting deeper
    /// than `JSONNesting.maxDepth` is refused before it is parsed.
    static func decode<Body: Decodable>(_ type: Body.Type, from body: [UInt8]) throws(FieldError) -> Body {
        guard !JSONNesting.exceeds(JSONNesting.maxDepth, in: body) else {
            throw FieldError(field: "body", rule: "nests deeper than \(JSONNesting.maxDepth) levels")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw error.fieldError
        } catch {
            throw FieldError(field: "body", rule: "not valid JSON")
        }
    }

    private static let notFound = HTTPResponse.error(404, .notFound, "no route for this path")

    private static func groupNotFound(_ guid: String) -> HTTPResponse {
        .error(404, .groupNotFound, "group '\(guid)' not found")
    }

    /// 405 with the `Allow` header listing `allowed`.
    static func methodNotAllowed(_ allowed: [HTTPMethod]) -> HTTPResponse {
        let list = allowed.map(\.name).joined(separator: ", ")
        return .error(405, .methodNotAllowed, "method not allowed here; allowed: \(list)", headers: [("Allow", list)])
    }
}

/// What the transport does with an admin request, as decided by ``AdminRouter/route(_:)``.
public enum AdminRoute: Sendable {
    /// Write this response now.
    case respond(HTTPResponse)
    /// Mint a token off the service thread with
    /// ``AdminRouter/tokenResponse(for:using:now:)``, then write its response.
    case mintToken(TokenRequest)
    /// Attach a recording's file URL in the store, off the service thread, then answer with
    /// ``AdminRouter/recordingResponse(_:sessionId:rid:url:)``.
    case attachRecording(sessionId: String, rid: String, url: String, startedAt: Int64?)
    /// Read or change the webhook endpoints in the store, off the service thread
    /// (`WebhookAdminRequest.perform`), then write its response.
    case webhooks(WebhookAdminRequest)
    /// Ring, list, end or steer calls, or tell a user's presence (`GatewayService+CallControl`).
    case callControl(CallControlRequest)
    /// Tell how the node's drain stands, after beginning it when `begin` (`GatewayService+Drain`).
    case drain(begin: Bool)
}

/// An admin API path under `/v1`, matched but its parameters not yet validated (libwebsockets
/// percent-decoded the path already).
enum AdminEndpoint: Equatable {
    /// `/v1/groups/{guid}`
    case group(guid: Substring)
    /// `/v1/groups/{guid}/members`
    case members(guid: Substring)
    /// `/v1/groups/{guid}/members/{uid}`
    case member(guid: Substring, uid: Substring)
    /// `/v1/tokens`
    case tokens
    /// `/v1/calls/{sessionId}/recordings/{rid}`
    case recording(sessionId: Substring, rid: Substring)
    /// `/v1/calls`
    case calls
    /// `/v1/calls/{sessionId}/end`
    case callEnd(sessionId: Substring)
    /// `/v1/calls/{sessionId}/participants/{uid}/mute`
    case participantMute(sessionId: Substring, uid: Substring)
    /// `/v1/calls/{sessionId}/participants/{uid}`
    case participant(sessionId: Substring, uid: Substring)
    /// `/v1/users/{uid}/presence`
    case presence(uid: Substring)
    /// `/v1/webhooks`
    case webhooks
    /// `/v1/webhooks/{id}`
    case webhook(id: Substring)
    /// `/v1/webhooks/{id}/deliveries`
    case webhookDeliveries(id: Substring)
    /// `/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`
    case webhookRedeliver(id: Substring, delivery: Substring)
    /// `/v1/admin/drain`
    case drain

    /// The endpoint for the path segments after `v1`, or nil when none matches. Literal segments
    /// match exactly; an empty segment, as from a trailing slash, matches
    /// nothing.
    init?(_ segments: ArraySlice<Substring>) {
        guard !segments.contains(where: \.isEmpty) else { return nil }
        switch Array(segments) {
        case ["tokens"]: self = .tokens
        case ["admin", "drain"]: self = .drain
        case let parts where parts.count == 2 && parts[0] == "groups":
            self = .group(guid: parts[1])
        case let parts where parts.count == 3 && parts[0] == "groups" && parts[2] == "members":
            self = .members(guid: parts[1])
        case let parts where parts.count == 4 && parts[0] == "groups" && parts[2] == "members":
            self = .member(guid: parts[1], uid: parts[3])
        case let parts where parts.count == 4 && parts[0] == "calls" && parts[2] == "recordings":
            self = .recording(sessionId: parts[1], rid: parts[3])
        case ["calls"]: self = .calls
        case let parts where parts.count == 3 && parts[0] == "calls" && parts[2] == "end":
            self = .callEnd(sessionId: parts[1])
        case let parts where parts.count == 5 && parts[0] == "calls" && parts[2] == "participants" && parts[4] == "mute":
            self = .participantMute(sessionId: parts[1], uid: parts[3])
        case let parts where parts.count == 4 && parts[0] == "calls" && parts[2] == "participants":
            self = .participant(sessionId: parts[1], uid: parts[3])
        case let parts where parts.count == 3 && parts[0] == "users" && parts[2] == "presence":
            self = .presence(uid: parts[1])
        case ["webhooks"]: self = .webhooks
        case let parts where parts.count == 2 && parts[0] == "webhooks":
            self = .webhook(id: parts[1])
        case let parts where parts.count == 3 && parts[0] == "webhooks" && parts[2] == "deliveries":
            self = .webhookDeliveries(id: parts[1])
        case let parts where parts.count == 5 && parts[0] == "webhooks" && parts[2] == "deliveries" && parts[4] == "redeliver":
            self = .webhookRedeliver(id: parts[1], delivery: parts[3])
        default: return nil
        }
    }

    /// The methods this endpoint answers, in `Allow` header order.
    var allowedMethods: [HTTPMethod] {
        switch self {
        case .group: [.get, .put, .delete]
        case .members: [.post]
        case .member: [.delete]
        case .tokens: [.post]
        case .recording: [.post]
        case .calls: [.get, .post]
        case .callEnd, .participantMute: [.post]
        case .participant: [.delete]
        case .presence: [.get]
        case .webhooks: [.get, .post]
        case .webhook: [.get, .patch, .delete]
        case .webhookDeliveries: [.get]
        case .webhookRedeliver: [.post]
        case .drain: [.get, .post]
        }
    }

    /// Whether `method` on this endpoint writes the store (refused while the store is behind).
    func writesStore(_ method: HTTPMethod) -> Bool {
        switch self {
        case .group, .members, .member, .recording, .webhooks, .webhook, .webhookRedeliver, .calls, .callEnd,
             .participantMute, .participant:
            method != .get
        case .tokens, .webhookDeliveries, .presence, .drain: false
        }
    }
}
