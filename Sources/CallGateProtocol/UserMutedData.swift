/// The `data` of `onUserMuted`: a participant's mute state after `setMuted`.
public struct UserMutedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Whose state changed.
    public var user: User
    /// Whether their audio is muted now.
    public var audioMuted: Bool
    /// Whether their video is muted now.
    public var videoMuted: Bool

    /// Makes the push data.
    public init(sessionId: String, user: User, audioMuted: Bool, videoMuted: Bool) {
        self.sessionId = sessionId
        self.user = user
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}
