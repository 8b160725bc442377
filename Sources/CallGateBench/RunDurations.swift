/// How long the phases of a run took, in seconds.
public struct RunDurations: Codable, Sendable, Equatable {
    /// First socket opened until every socket was connected (or had failed).
    public var connectSeconds: Double
    /// Scenario start until the last call finished: the duration plus the drain.
    public var scenarioSeconds: Double
}
