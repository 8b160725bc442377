/// The `config` object of a result: what was asked for and what was used, without secrets.
public struct RunSettings: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    /// Sockets asked for (`--sockets`).
    public var sockets: Int
    /// Sockets the scenario really used (pairs, whole groups).
    public var usedSockets: Int
    public var duration: Double
    public var rate: Double
    public var groupSize: Int
    /// Source addresses the sockets were spread over; 0 when they were not bound.
    public var addresses: Int
    public var serverPid: Int32?
    /// Client event loops (threads) the generator ran.
    public var loops: Int
}
