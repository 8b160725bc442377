import CallGateCore

extension SQLiteCallLogStore {
    /// Applies `writes` in order in one transaction, committed (to the degree `durability`
    /// says) before it returns; all or none. Calls are upserted by id, so a retried or
    /// re-saved record stays one row, and a call saved several times in one batch is written
    /// once, as its last save (`StoreWrite.lastSaves`). One process owns its file, so nothing is
    /// fenced. On the writer thread.
    @discardableResult
    public func apply(_ writes: [StoreWrite]) throws -> StoreApplied {
        guard !writes.isEmpty else { return StoreApplied() }
        let kept = StoreWrite.lastSaves(writes)
        return try write("applying \(writes.count) writes") { db in
            var writer = StoreTransaction(db: db, committed: committedMembers)
            for change in kept {
                try writer.perform(change)
            }
            let saved = writer.saved
            if !saved.isEmpty {
                db.afterNextTransaction(onCommit: { [committedMembers] _ in committedMembers.commit(saved) })
            }
            return StoreApplied(missedCalls: try writer.countMissed())
        }
    }

    /// Attaches the file URL of recording `rid` of the newest call under `sessionId`, durably;
    /// false when that call has no such recording (or there is no such call).
    public func attachRecordingURL(_ url: String, sessionId: String, rid: String, startedAt: Int64?) throws -> RecordingMatch {
        try write("attaching a recording URL") { db in
            try StoreTransaction(db: db, committed: committedMembers)
                .attachRecordingURL(url, sessionId: sessionId, rid: rid, startedAt: startedAt)
        }
    }
}
