/// The `data` of `onRecordingToggled`: a participant started or stopped the recording.
public struct RecordingToggledData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// True when the recording started, false when it stopped.
    public var recordingStarted: Bool
    /// Who started or stopped it.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, recordingStarted: Bool, user: User) {
        self.sessionId = sessionId
        self.recordingStarted = recordingStarted
        self.user = user
    }
}
