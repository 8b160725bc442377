/// How the bench loop's part of a run ended: its measurements and phase lengths, or why it could
/// not run at all.
struct EngineOutcome: Sendable {
    var snapshot: MetricsSnapshot
    /// First open until every socket was connected or had failed.
    var connectSeconds: Double
    /// Scenario start until the last call finished (the duration plus the drain).
    var scenarioSeconds: Double
    /// Set when no socket could connect or authenticate: the run did not happen.
    var failure: BenchError?
}
