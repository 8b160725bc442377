/// The gateway's resident memory before and after the sockets connected.
public struct ServerMemoryReport: Codable, Sendable, Equatable {
    /// VmRSS before the first socket opened.
    public var rssBeforeBytes: UInt64
    /// VmRSS at the end of the scenario, sockets still open.
    public var rssAfterBytes: UInt64
    /// (after - before) / sockets connected; negative if the server shrank.
    public var bytesPerSocket: Int64

    public init(rssBeforeBytes: UInt64, rssAfterBytes: UInt64, sockets: Int) {
        self.rssBeforeBytes = rssBeforeBytes
        self.rssAfterBytes = rssAfterBytes
        let growth = Int64(rssAfterBytes) - Int64(rssBeforeBytes)
        bytesPerSocket = sockets > 0 ? growth / Int64(sockets) : 0
    }
}
