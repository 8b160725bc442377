/// One point of a latency percentile curve: `percentile` of the values are at or below `milliseconds`.
public struct PercentilePoint: Sendable, Equatable {
    public var percentile: Double
    public var milliseconds: Double

    public init(percentile: Double, milliseconds: Double) {
        self.percentile = percentile
        self.milliseconds = milliseconds
    }
}
