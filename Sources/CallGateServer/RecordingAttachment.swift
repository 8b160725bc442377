/// The answer to a recording URL attachment: `{"recordingUrl", "sessionId", "rid"}`.
struct RecordingAttachment: Encodable {
    /// The URL now attached.
    var recordingUrl: String
    /// The session whose newest call holds the recording.
    var sessionId: String
    /// The recording.
    var rid: String
}
