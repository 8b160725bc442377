import CallGateCore

extension SQLiteCallLogStore {
    /// Applies `writes` in order in one transaction, committed (to the degree `durability`
    /// says) before it returns; all or none. Calls are upserted by id, so a retried or
    /// re-saved record stays one row, and a call saved several times in one batch is written
    /// once, as its last save (`StoreWrite.lastSaves`). One process owns its file, so nothing is
    /// fenced. The missed calls go in at once; the counts they change are held in
    /// `missedCounts` and written with the others every ten seconds. On the writer thread.
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
            let staged = try writer.stageMissedCounts(from: missedCounts)
            let wroteAll = writer.droppedUnseen || missedCounts.isDue(changing: !staged.isEmpty)
            var recountFrom = missedCounts.recountFrom
            if wroteAll {
                try writer.writeMissedCounts(missedCounts.all.merging(staged) { _, new in new })
                recountFrom = nil
            } else if let lowest = writer.lowestMissedCall, lowest < recountFrom ?? .max {
                recountFrom = lowest
            }
            if recountFrom != missedCounts.recountFrom {
                try writer.setRecountFrom(recountFrom)
            }
            db.afterNextTransaction(onCommit: { [committedMembers, missedCounts, recountFrom] _ in
                committedMembers.commit(saved)
                missedCounts.commit(staged, recountFrom: recountFrom, wroteAll: wroteAll)
            })
            return StoreApplied(missedCalls: staged.mapValues(\.count))
        }
    }

    /// Writes the missed-call counts held since the last write, every one, and marks the table
    /// complete: a clean stop leaves nothing to recount.
    public func flush() throws {
        try write("writing the missed-call counts") { db in
            let writer = StoreTransaction(db: db, committed: committedMembers)
            try writer.writeMissedCounts(missedCounts.all)
            try writer.setRecountFrom(nil)
            db.afterNextTransaction(onCommit: { [missedCounts] _ in missedCounts.commit([:], recountFrom: nil, wroteAll: true) })
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
