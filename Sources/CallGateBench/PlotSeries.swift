/// One line of the percentile plot: a metric's name and its curve.
public struct PlotSeries: Sendable, Equatable {
    public var name: String
    public var points: [PercentilePoint]

    public init(name: String, points: [PercentilePoint]) {
        self.name = name
        self.points = points
    }
}
