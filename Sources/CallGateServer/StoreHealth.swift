import Foundation

/// How the store writer is doing, for `/readyz` and for refusing ops that would write while
/// the store is behind. A snapshot; any thread.
struct StoreHealth: Equatable, Sendable {
    /// Writes submitted and not yet committed (or set aside).
    var queuedWrites = 0
    /// When the store began refusing every write, nil while it takes them: the last write,
    /// retry or idle probe succeeded.
    var failingSince: ContinuousClock.Instant?
    /// What the store said when it last refused a write.
    var lastError: String?
}
