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

    /// The endpoint for the path segments after `v1`, or nil when none matches. Literal segments
    /// match exactly; an empty segment, as from a trailing slash, matches
    /// nothing.
    init?(_ segments: ArraySlice<Substring>) {
        guard !segments.contains(where: \.isEmpty) else { return nil }
        switch Array(segments) {
        case ["tokens"]: self = .tokens
        case let parts where parts.count == 2 && parts[0] == "groups":
            self = .group(guid: parts[1])
        case let parts where parts.count == 3 && parts[0] == "groups" && parts[2] == "members":
            self = .members(guid: parts[1])
        case let parts where parts.count == 4 && parts[0] == "groups" && parts[2] == "members":
            self = .member(guid: parts[1], uid: parts[3])
        case let parts where parts.count == 4 && parts[0] == "calls" && parts[2] == "recordings":
            self = .recording(sessionId: parts[1], rid: parts[3])
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
        }
    }

    /// Whether `method` on this endpoint writes the store (refused while the store is behind).
    func writesStore(_ method: HTTPMethod) -> Bool {
        switch self {
        case .group, .members, .member, .recording: method != .get
        case .tokens: false
        }
    }
}
