import CallGateStoreSQLite

/// `database-sync`: what a call log commit must survive before the gateway acknowledges it.
enum DatabaseSync: String, CaseIterable {
    /// SQLite `synchronous = NORMAL` in WAL mode: survives a crash of the process.
    case normal
    /// `synchronous = FULL`: also survives a power loss, with one fsync per commit.
    case full

    /// The store's durability for this choice.
    var durability: SQLiteCallLogStore.Durability {
        switch self {
        case .normal: .processCrash
        case .full: .powerLoss
        }
    }
}
