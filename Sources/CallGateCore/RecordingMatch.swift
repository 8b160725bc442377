/// What attaching a recording URL found: the one call that has the recording, none, or several
/// (a meeting id that held several meetings, each with a recording of that id).
public enum RecordingMatch: Equatable, Sendable {
    /// The URL was attached to the only call with the recording.
    case attached
    /// No call under the session id has the recording (with the start time asked for).
    case notFound
    /// Several calls under the session id have it; the URL was attached to none.
    case ambiguous
}
