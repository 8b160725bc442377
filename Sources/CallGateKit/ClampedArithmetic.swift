/// Arithmetic on times the gateway sends (Unix seconds and milliseconds) that a hostile or
/// broken server cannot turn into a crash: results past the range stop at its end.
extension Int64 {
    /// `self - other`, clamped to Int64's range.
    func subtractingClamped(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self + other`, clamped to Int64's range.
    func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}

extension CallGateConnection {
    /// Unix seconds as milliseconds, clamped.
    static func millis(ofSeconds seconds: Int64) -> Int64 {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : product
    }
}
