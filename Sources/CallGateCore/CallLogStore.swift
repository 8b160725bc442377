/// Where call logs and group membership are kept across restarts.
///
/// Records read back carry the recording URLs attached with `attachRecordingURL`; saving a
/// record again keeps them (a URL is attached beside the record, not in it).
///
/// Implementations are thread-safe: the gateway writes from one writer thread (batches, in
/// order) and reads from others; nothing here runs on the service thread.
public protocol CallLogStore: Sendable {
    /// Applies `writes` in order, all or none, durably before returning.
    func apply(_ writes: [StoreWrite]) throws
    /// The calls still `initiated` or `ongoing`, oldest first: what a restarted gateway resumes.
    func openCalls() throws -> [CallLogRecord]
    /// The highest call id ever saved, 0 for an empty store.
    func lastCallID() throws -> Int64
    /// Every group, for the gateway's in-memory group table.
    func groups() throws -> [GroupRecord]
    /// One page of the calls `query.viewer` was part of, newest first.
    func page(_ query: CallLogQuery) throws -> CallLogPage
    /// The calls under `sessionId` that `viewer` was part of, newest first.
    func calls(sessionId: String, visibleTo viewer: String) throws -> [CallLogRecord]
    /// Attaches the file URL of recording `rid` to the one call under `sessionId` that has it
    /// (and, with `startedAt`, whose recording `rid` started then, Unix seconds). A meeting id may
    /// hold several meetings, each numbering its recordings from 1: when more than one call
    /// matches, nothing is attached.
    func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch
    /// Whether a write would commit now, for the readiness probe: a store that cannot take
    /// writes (read-only file system, lock held by another process) answers false. May block
    /// for as long as a write.
    func isWritable() -> Bool
}
