/// The `data` of a `joinSession` request.
public struct JoinSessionParams: Codable, Hashable, Sendable {
    /// The call token from `generateToken`: it names the session and the user.
    public var callToken: String
    /// Whether this device joins with audio only; a new standalone session is then an audio call.
    /// Absent means false.
    public var audioOnly: Bool?
    /// How long, in seconds, this user may stay alone in the session before being removed;
    /// absent means the server default.
    public var idleTimeout: Int?

    /// Makes join params.
    public init(callToken: String, audioOnly: Bool? = nil, idleTimeout: Int? = nil) {
        self.callToken = callToken
        self.audioOnly = audioOnly
        self.idleTimeout = idleTimeout
    }
}
