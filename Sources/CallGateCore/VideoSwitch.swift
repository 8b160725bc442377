/// One `switchToVideo` in a session: who turned the audio call into a video call, and when.
public struct VideoSwitch: Hashable, Sendable {
    /// When, Unix seconds.
    public var at: Int64
    /// Who asked.
    public var uid: String

    /// Makes a video switch.
    public init(at: Int64, uid: String) {
        self.at = at
        self.uid = uid
    }
}
