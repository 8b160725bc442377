import CallGateCore
import CallGateProtocol
import Foundation

/// The body of `PUT /v1/groups/{guid}`: `{"name", "icon"?, "members": [uid]}`. Unknown fields are ignored.
struct GroupBody: Decodable {
    var name: String
    var icon: String?
    var members: [String]

    /// Throws unless `name` and every member uid are valid.
    func validate() throws(FieldError) {
        try FieldError.checkName(name, field: "name")
        if let icon {
            try FieldError.checkPicture(icon, field: "icon")
        }
        for (index, uid) in members.enumerated() {
            try FieldError.checkID(uid, field: "members[\(index)]")
        }
    }
}

/// The body of `POST /v1/groups/{guid}/members`: `{"uids": [uid]}`. Unknown fields are ignored.
struct MembersBody: Decodable {
    var uids: [String]

    /// Throws unless every uid is valid.
    func validate() throws(FieldError) {
        for (index, uid) in uids.enumerated() {
            try FieldError.checkID(uid, field: "uids[\(index)]")
        }
    }
}

/// A group as the admin API returns it: `{"guid", "name", "icon"?, "membersCount", "members"}`.
///
/// A plain value; any thread.
public struct GroupDetail: Codable, Equatable, Sendable {
    /// The group id.
    public var guid: String
    /// The display name.
    public var name: String
    /// Omitted from the JSON when absent.
    public var icon: String?
    /// How many members; always `members.count`.
    public var membersCount: Int
    /// Member uids in the order they were added.
    public var members: [String]

    /// The admin view of a stored group.
    public init(_ record: GroupRecord) {
        guid = record.guid
        name = record.name
        icon = record.icon
        membersCount = record.members.count
        members = record.members
    }
}

/// The body of `POST /v1/tokens`: `{"uid", "name"?, "avatar"?, "ttl"?}`. Unknown fields are ignored.
struct TokenBody: Decodable {
    var uid: String
    var name: String?
    var avatar: String?
    var ttl: Int?

    private enum CodingKeys: String, CodingKey {
        case uid, name, avatar, ttl
    }

    /// Decodes `ttl` as a number and then requires an integer: Foundation's decoder on Linux
    /// reports `1.5` or `1e30` for an `Int` as invalid JSON with no field, which would not say
    /// which field is wrong.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decode(String.self, forKey: .uid)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        avatar = try container.decodeIfPresent(String.self, forKey: .avatar)
        let notAnInteger = DecodingError.typeMismatch(
            Int.self, .init(codingPath: container.codingPath + [CodingKeys.ttl], debugDescription: "not an integer"))
        let number: Double?
        do {
            number = try container.decodeIfPresent(Double.self, forKey: .ttl)
        } catch DecodingError.typeMismatch {
            throw notAnInteger
        }
        ttl = try number.map { number in
            guard let integer = Int(exactly: number) else { throw notAnInteger }
            return integer
        }
    }

    /// The validated request.
    func validated() throws(FieldError) -> TokenRequest {
        try TokenRequest(uid: uid, name: name, avatar: avatar, ttl: ttl)
    }
}

/// A validated request for a connection token: the `POST /v1/tokens` body, or the flags of
/// `callgate token`, after the same checks.
///
/// A plain value; any thread.
public struct TokenRequest: Equatable, Sendable {
    /// The lifetime used when none is given: one day.
    public static let defaultTTL = 86_400
    /// The longest lifetime: 30 days.
    public static let maxTTL = 2_592_000

    /// Who the token is for; `name` already defaulted to the uid.
    public let user: User
    /// Seconds until the token expires, 1...``maxTTL``.
    public let ttl: Int

    /// Validates the fields: `uid` a valid uid, `name` (default `uid`) a valid name, `ttl`
    /// (default one day) within 1...30 days. `avatar` is taken as is.
    public init(uid: String, name: String? = nil, avatar: String? = nil, ttl: Int? = nil) throws(FieldError) {
        try FieldError.checkID(uid, field: "uid")
        if let name { try FieldError.checkName(name, field: "name") }
        let ttl = ttl ?? Self.defaultTTL
        guard (1...Self.maxTTL).contains(ttl) else {
            throw FieldError(field: "ttl", rule: "must be an integer number of seconds in 1..\(Self.maxTTL)")
        }
        self.user = User(uid: uid, name: name ?? uid, avatar: avatar)
        self.ttl = ttl
    }
}

/// The body of `POST /v1/calls/{sessionId}/recordings/{rid}`: `{"recordingUrl", "startedAt"?}`.
/// Unknown fields are ignored.
struct RecordingURLBody: Decodable {
    /// The longest URL accepted, in UTF-8 bytes.
    static let maxURLLength = 2048

    /// Where the recorded file can be fetched: an http or https URL.
    var recordingUrl: String
    /// When the recording started (Unix seconds, its `startedAt` in the call log): picks the
    /// meeting when a meeting id held several with a recording of this id.
    var startedAt: Int64?

    /// Throws unless `recordingUrl` is an absolute http(s) URL of at most `maxURLLength` bytes.
    func validate() throws(FieldError) {
        guard recordingUrl.utf8.count <= Self.maxURLLength,
              let url = URL(string: recordingUrl),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false
        else {
            throw FieldError(field: "recordingUrl", rule: "expected an http or https URL of at most \(Self.maxURLLength) bytes")
        }
        if let startedAt, startedAt < 0 {
            throw FieldError(field: "startedAt", rule: "expected Unix seconds, 0 or more")
        }
    }
}

/// The answer to a recording URL attachment: `{"recordingUrl", "sessionId", "rid"}`.
struct RecordingAttachment: Encodable {
    /// The URL now attached.
    var recordingUrl: String
    /// The session whose newest call holds the recording.
    var sessionId: String
    /// The recording.
    var rid: String
}
