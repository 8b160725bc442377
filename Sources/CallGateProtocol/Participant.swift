/// One user in a session, however many of their devices joined it.
public struct Participant: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// When the user's first device joined (this stay), Unix seconds.
    public var joinedAt: Int64
    /// Whether the user's audio is muted.
    public var audioMuted: Bool
    /// Whether the user's video is muted.
    public var videoMuted: Bool

    /// Makes a participant value.
    public init(uid: String, name: String, avatar: String? = nil, joinedAt: Int64, audioMuted: Bool, videoMuted: Bool) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}
