import CallGateProtocol

/// One recording of a session, from `startRecording` to `stopRecording` (or the session's end).
public struct RecordingHistory: Hashable, Sendable {
    /// The recording's id, unique per recording: `<sessionId>-r<n>`, n counting from 1.
    public var rid: String
    /// When it started, Unix seconds.
    public var startedAt: Int64
    /// When it stopped, Unix seconds; nil while it runs.
    public var endedAt: Int64?
    /// `endedAt - startedAt` in seconds; nil while it runs.
    public var duration: Int64?

    /// Makes a recording history.
    public init(rid: String, startedAt: Int64, endedAt: Int64? = nil, duration: Int64? = nil) {
        self.rid = rid
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
    }
}

extension RecordingHistory {
    /// The call log's view of this recording (its URL is attached later, by the store).
    var logRecording: CallLogRecording {
        CallLogRecording(rid: rid, startedAt: startedAt, endedAt: endedAt, duration: duration)
    }
}
