import CallGateProtocol

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
