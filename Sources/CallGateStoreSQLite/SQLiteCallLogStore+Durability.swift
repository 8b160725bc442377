extension SQLiteCallLogStore {
    /// What a commit survives, which decides `PRAGMA synchronous` (the database is in WAL mode).
    public enum Durability: Sendable, Hashable {
        /// `synchronous = NORMAL`: a commit is written to the WAL file (the OS page cache) before
        /// `apply` returns, with no fsync. It survives the process being killed (SIGKILL, a
        /// crash, an OOM kill); a power loss or kernel panic may roll back the last commits,
        /// never corrupt the file. fsync happens at checkpoints only.
        case processCrash
        /// `synchronous = FULL`: every commit is fsynced to the WAL before `apply` returns, so
        /// it also survives power loss and kernel panics, at the cost of one fsync per batch.
        case powerLoss

        /// The `PRAGMA synchronous` value.
        var synchronous: String {
            switch self {
            case .processCrash: "NORMAL"
            case .powerLoss: "FULL"
            }
        }
    }
}
