import CallGateCore
import CallGateProtocol
import Foundation

/// A validated request of the admin API's call control (`/v1/calls`, `/v1/users/{uid}/presence`):
/// the app's backend rings, lists, ends, mutes, removes, or asks where a user stands. The ops
/// on one call run on the node that owns it (`CallCommand`). A plain value; any thread.
public enum CallControlRequest: Sendable, Equatable {
    /// `POST /v1/calls`: ring on behalf of `initiator`, shown as `profile` when one was given.
    case ring(initiator: String, profile: User?, InitiateCallParams)
    /// `GET /v1/calls`: the live calls with `status` (nil: both), one page.
    case list(status: CallStatus?, page: Int, perPage: Int)
    /// An op on one call, for the node that owns it.
    case command(CallCommand)
    /// `GET /v1/users/{uid}/presence`.
    case presence(uid: String)

    /// The largest `perPage` of `GET /v1/calls`.
    static let maxPerPage = 100
    /// `perPage` when none is given.
    static let defaultPerPage = 25

    /// The request for `endpoint` (one of the call control endpoints, with one of its methods);
    /// nil for any other endpoint.
    static func parse(_ endpoint: AdminEndpoint, _ request: HTTPRequest) throws(FieldError) -> CallControlRequest? {
        switch endpoint {
        case .calls where request.method == .get:
            return try list(request.queryItems)
        case .calls:
            let body = try AdminRouter.decode(RingBody.self, from: request.body)
            return .ring(initiator: body.initiator.uid, profile: try body.initiator.validated(), body.params)
        case .callEnd(let rawSessionID):
            let reason = request.body.isEmpty ? nil : try AdminRouter.decode(EndBody.self, from: request.body).reason
            return .command(.end(sessionId: try AdminRouter.sessionID(rawSessionID), reason: reason))
        case .participantMute(let rawSessionID, let rawUID):
            return .command(.mute(
                sessionId: try AdminRouter.sessionID(rawSessionID), uid: try AdminRouter.parameter(rawUID, field: "uid")))
        case .participant(let rawSessionID, let rawUID):
            return .command(.remove(
                sessionId: try AdminRouter.sessionID(rawSessionID), uid: try AdminRouter.parameter(rawUID, field: "uid")))
        case .presence(let rawUID):
            return .presence(uid: try AdminRouter.parameter(rawUID, field: "uid"))
        default:
            return nil
        }
    }

    /// `status` (`ringing` or `ongoing`), `page` (from 1) and `perPage` (1 to 100) of a list.
    private static func list(_ items: [String]) throws(FieldError) -> CallControlRequest {
        var status: CallStatus?
        var page = 1
        var perPage = defaultPerPage
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? String(parts[1]) : ""
            switch parts[0] {
            case "status":
                switch value {
                case "ringing": status = .initiated
                case "ongoing": status = .ongoing
                default: throw FieldError(field: "status", rule: "expected ringing or ongoing")
                }
            case "page":
                guard let number = Int(value), number >= 1, number <= 1_000_000 else {
                    throw FieldError(field: "page", rule: "expected a whole number from 1 to 1000000")
                }
                page = number
            case "perPage":
                guard let number = Int(value), (1...maxPerPage).contains(number) else {
                    throw FieldError(field: "perPage", rule: "expected a whole number from 1 to \(maxPerPage)")
                }
                perPage = number
            default:
                continue
            }
        }
        return .list(status: status, page: page, perPage: perPage)
    }

}

/// An op on one call that no device of its own sends (the app's backend's, or a node's for call
/// waiting), run by the node that owns the call: forwarded there in cluster mode as its JSON
/// (`ClusterMessage.command`). A plain value; any thread.
public enum CallCommand: Codable, Sendable, Equatable {
    /// `POST /v1/calls/{sessionId}/end`.
    case end(sessionId: String, reason: String?)
    /// `POST /v1/calls/{sessionId}/participants/{uid}/mute`.
    case mute(sessionId: String, uid: String)
    /// `DELETE /v1/calls/{sessionId}/participants/{uid}`.
    case remove(sessionId: String, uid: String)
    /// Cluster mode, from the node of a waiting call `uid` accepts: put their answered call
    /// `sessionId` on hold for them (`GatewayCore.holdAway`). No HTTP route makes it.
    case holdAway(sessionId: String, uid: String)

    /// The call it acts on.
    var sessionId: String {
        switch self {
        case .end(let sessionId, _), .mute(let sessionId, _), .remove(let sessionId, _), .holdAway(let sessionId, _):
            sessionId
        }
    }
}

/// The body of `POST /v1/calls`: `initiateCall`'s fields and `initiator`. Unknown fields are
/// ignored.
private struct RingBody: Decodable {
    var initiator: InitiatorField
    var params: InitiateCallParams

    private enum CodingKeys: String, CodingKey {
        case initiator
    }

    init(from decoder: any Decoder) throws {
        initiator = try decoder.container(keyedBy: CodingKeys.self).decode(InitiatorField.self, forKey: .initiator)
        params = try InitiateCallParams(from: decoder)
    }
}

/// `initiator`: a uid, or a profile `{"uid", "name"?, "avatar"?}`.
private struct InitiatorField: Decodable {
    var uid: String
    var name: String?
    var avatar: String?

    private enum CodingKeys: String, CodingKey {
        case uid, name, avatar
    }

    init(from decoder: any Decoder) throws {
        if let uid = try? decoder.singleValueContainer().decode(String.self) {
            self.uid = uid
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decode(String.self, forKey: .uid)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        avatar = try container.decodeIfPresent(String.self, forKey: .avatar)
    }

    /// The initiator's profile, nil when only a uid was given (then the gateway shows them as
    /// it knows them); `name` defaults to the uid.
    func validated() throws(FieldError) -> User? {
        try FieldError.checkID(uid, field: "initiator")
        if let name {
            try FieldError.checkName(name, field: "initiator.name")
        }
        if let avatar {
            try FieldError.checkPicture(avatar, field: "initiator.avatar")
        }
        guard name != nil || avatar != nil else { return nil }
        return User(uid: uid, name: name ?? uid, avatar: avatar)
    }
}

/// The body of `POST /v1/calls/{sessionId}/end`, which may be empty: `{"reason"?}`.
private struct EndBody: Decodable {
    var reason: String?
}
