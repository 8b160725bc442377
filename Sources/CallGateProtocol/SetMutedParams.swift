/// The `data` of a `setMuted` request. An absent field keeps its current value.
public struct SetMutedParams: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Whether the user's audio is muted now; nil keeps it.
    public var audioMuted: Bool?
    /// Whether the user's video is muted now; nil keeps it.
    public var videoMuted: Bool?

    /// Makes mute params.
    public init(sessionId: String, audioMuted: Bool? = nil, videoMuted: Bool? = nil) {
        self.sessionId = sessionId
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}
