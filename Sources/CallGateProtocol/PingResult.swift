/// The `result` of a `ping`.
public struct PingResult: Codable, Hashable, Sendable {
    /// The server's clock, Unix milliseconds.
    public var serverTime: Int64

    /// Makes a ping result.
    public init(serverTime: Int64) {
        self.serverTime = serverTime
    }
}
