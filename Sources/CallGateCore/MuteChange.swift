/// One `setMuted` in a session: who, when, and their mute state after it.
public struct MuteChange: Hashable, Sendable {
    /// When, Unix seconds.
    public var at: Int64
    /// Whose state it was.
    public var uid: String
    /// Whether their audio was muted after the change.
    public var audioMuted: Bool
    /// Whether their video was muted after the change.
    public var videoMuted: Bool

    /// Makes a mute change.
    public init(at: Int64, uid: String, audioMuted: Bool, videoMuted: Bool) {
        self.at = at
        self.uid = uid
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}
