/// One recording of a logged call.
public struct CallLogRecording: Codable, Hashable, Sendable {
    /// The recording's id: `<sessionId>-r<n>`, n counting from 1 within the call.
    public var rid: String
    /// Where the recorded file is, once the recording service attached it.
    public var recordingUrl: String?
    /// When it started, Unix seconds.
    public var startedAt: Int64
    /// When it stopped, Unix seconds; absent while it runs.
    public var endedAt: Int64?
    /// `endedAt - startedAt` in seconds; absent while it runs.
    public var duration: Int64?

    /// Makes a recording value.
    public init(rid: String, recordingUrl: String? = nil, startedAt: Int64, endedAt: Int64? = nil, duration: Int64? = nil) {
        self.rid = rid
        self.recordingUrl = recordingUrl
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
    }
}
