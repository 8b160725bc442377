import Synchronization

/// Cluster mode: the epoch under which this process owns each open call it took over (a call it
/// created is owned under epoch 0, the row's default), which every write of the call must match.
///
/// A survivor's takeover (or this node's own restart) raises a call's epoch in the database; a
/// process that still runs the call under the old epoch (frozen past its lease, or the previous
/// run of the same node id) then finds its writes fenced out. Set when a takeover commits,
/// forgotten when the call ends, is fenced out, or is found owned elsewhere. Any thread.
final class OwnedEpochs: Sendable {
    private let entries = Mutex<[Int64: Int64]>([:])

    /// The epoch this process owns call `id` under: 0 for a call it did not take over.
    func epoch(of id: Int64) -> Int64 {
        entries.withLock { $0[id] ?? 0 }
    }

    /// Records that this process owns each call under its epoch.
    func own(_ epochs: [Int64: Int64]) {
        guard !epochs.isEmpty else { return }
        entries.withLock { $0.merge(epochs) { _, new in new } }
    }

    /// Forgets calls this process no longer owns, or that ended.
    func forget<S: Sequence>(_ ids: S) where S.Element == Int64 {
        entries.withLock { entries in
            for id in ids {
                entries[id] = nil
            }
        }
    }
}
