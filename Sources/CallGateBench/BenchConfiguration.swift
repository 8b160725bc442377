/// Everything a bench run is told on its command line, validated.
public struct BenchConfiguration: Sendable, Codable, Equatable {
    public var scenario: Scenario
    public var host: String
    public var port: Int
    /// HS256 secret the gateway verifies connection tokens with; tokens are minted locally.
    public var jwtSecret: String
    /// Bearer key of the admin API; `group` needs it to create its groups.
    public var adminKey: String?
    public var sockets: Int
    /// Seconds the scenario runs once every socket is connected (idle: how long they are held).
    public var duration: Double
    /// Calls (ring, churn), group rings (group) or reconnects (churn) per second.
    public var rate: Double
    /// Members per group, the caller included (group).
    public var groupSize: Int
    /// Source addresses 127.0.0.1 ... 127.0.0.N; nil: one per 5,000 sockets (see `SourceAddressPlan`).
    public var addresses: Int?
    /// The gateway's process id, to read its memory from /proc.
    public var serverPID: Int32?
    /// Free text kept in the JSON and the report.
    public var label: String?

    /// Prefix of the group ids the `group` scenario creates (`bench-g0`, `bench-g1`, ...).
    public static let groupPrefix = "bench-g"

    /// A configuration with the documented defaults for everything optional.
    public init(
        scenario: Scenario, host: String = "127.0.0.1", port: Int = 8080, jwtSecret: String, adminKey: String? = nil,
        sockets: Int? = nil, duration: Double = 10, rate: Double? = nil, groupSize: Int = 10, addresses: Int? = nil,
        serverPID: Int32? = nil, label: String? = nil
    ) {
        self.scenario = scenario
        self.host = host
        self.port = port
        self.jwtSecret = jwtSecret
        self.adminKey = adminKey
        self.sockets = sockets ?? 1_000
        self.duration = duration
        self.rate = rate ?? Self.defaultRate(scenario)
        self.groupSize = groupSize
        self.addresses = addresses
        self.serverPID = serverPID
        self.label = label
    }

    /// 100 calls/s for ring and churn, 10 group rings/s, and unused for idle.
    public static func defaultRate(_ scenario: Scenario) -> Double {
        switch scenario {
        case .idle: 0
        case .ring, .churn: 100
        case .group: 10
        }
    }

    /// The user name of socket `index`.
    public static func uid(_ index: Int) -> String { "u\(index)" }

    /// The id of group `index`.
    public static func groupID(_ index: Int) -> String { "\(groupPrefix)\(index)" }

    /// Sockets the scenario really uses: all for idle, an even number for ring and churn, whole
    /// groups for group.
    public var usedSockets: Int {
        switch scenario {
        case .idle: sockets
        case .ring: sockets / 2 * 2
        case .group: sockets / groupSize * groupSize
        case .churn: sockets
        }
    }

    /// Checks the values against each other; the error says what to change, in one line.
    public func validate() throws(BenchError) {
        guard !host.isEmpty else { throw BenchError("--host must not be empty") }
        guard (1...65535).contains(port) else { throw BenchError("--port must be 1 to 65535, got \(port)") }
        guard !jwtSecret.isEmpty else { throw BenchError("--jwt-secret must not be empty") }
        guard sockets >= 1 else { throw BenchError("--sockets must be at least 1") }
        guard duration > 0, duration.isFinite else { throw BenchError("--duration must be a positive number of seconds") }
        switch scenario {
        case .idle:
            break
        case .ring:
            guard sockets >= 2 else { throw BenchError("ring needs --sockets 2 or more (pairs of users)") }
            guard rate > 0, rate.isFinite else { throw BenchError("--rate must be a positive number") }
        case .group:
            guard groupSize >= 2 else { throw BenchError("--group-size must be at least 2 (the caller and a member)") }
            guard sockets >= groupSize else {
                throw BenchError("group needs --sockets of at least --group-size (\(groupSize)), got \(sockets)")
            }
            guard rate > 0, rate.isFinite else { throw BenchError("--rate must be a positive number") }
            guard adminKey?.isEmpty == false else {
                throw BenchError("group creates its groups with the admin API: give --admin-key")
            }
        case .churn:
            guard sockets >= 4 else { throw BenchError("churn needs --sockets 4 or more (ringing pairs plus sockets to churn)") }
            guard rate > 0, rate.isFinite else { throw BenchError("--rate must be a positive number") }
        }
    }
}
