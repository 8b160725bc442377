import Foundation

/// Everything a bench run is told on its command line, validated.
public struct BenchConfiguration: Sendable, Codable, Equatable {
    public var scenario: Scenario
    public var host: String
    public var port: Int
    /// More gateways on `host` (the nodes of a cluster): socket i connects to the i-th of
    /// `port` and these, round robin, so the two users of a ring pair are on different nodes.
    /// Nil (or empty): every socket connects to `port`.
    public var alsoPorts: [Int]?
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

    /// The port socket `index` connects to: `port` and `alsoPorts` in turn.
    public func port(for index: Int) -> Int {
        guard let others = alsoPorts, !others.isEmpty else { return port }
        let all = [port] + others
        return all[index % all.count]
    }

    /// The gateway after the one on `current`, in the order `port` and `alsoPorts` are given:
    /// where a socket moved off a draining gateway goes.
    public func port(after current: Int) -> Int {
        let all = [port] + (alsoPorts ?? [])
        guard let position = all.firstIndex(of: current) else { return port }
        return all[(position + 1) % all.count]
    }

    /// Prefix of the group ids the `group` scenario creates (`bench-g0`, `bench-g1`, ...).
    public static let groupPrefix = "bench-g"

    /// A configuration with the documented defaults for everything optional.
    public init(
        scenario: Scenario, host: String = "127.0.0.1", port: Int = 8080, jwtSecret: String, adminKey: String? = nil,
        sockets: Int? = nil, duration: Double = 10, rate: Double? = nil, groupSize: Int = 10, addresses: Int? = nil,
        serverPID: Int32? = nil, label: String? = nil, alsoPorts: [Int]? = nil
    ) {
        self.scenario = scenario
        self.host = host
        self.port = port
        self.alsoPorts = alsoPorts
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

    /// 100 calls/s for ring and churn, 10 group rings/s, and unused for idle and drain.
    public static func defaultRate(_ scenario: Scenario) -> Double {
        switch scenario {
        case .idle, .drain: 0
        case .ring, .churn: 100
        case .group: 10
        }
    }

    /// The user name of socket `index`.
    public static func uid(_ index: Int) -> String { "u\(index)" }

    /// The id of group `index`.
    public static func groupID(_ index: Int) -> String { "\(groupPrefix)\(index)" }

    /// Sockets the scenario really uses: all for idle and drain, an even number for ring and churn, whole
    /// groups for group.
    public var usedSockets: Int {
        switch scenario {
        case .idle, .drain: sockets
        case .ring: sockets / 2 * 2
        case .group: sockets / groupSize * groupSize
        case .churn: sockets
        }
    }

    /// Checks the values against each other; the error says what to change, in one line.
    public func validate() throws(BenchError) {
        guard !host.isEmpty else { throw BenchError("--host must not be empty") }
        guard (1...65535).contains(port) else { throw BenchError("--port must be 1 to 65535, got \(port)") }
        for other in alsoPorts ?? [] where !(1...65535).contains(other) {
            throw BenchError("--also-port must be 1 to 65535, got \(other)")
        }
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
        case .drain:
            guard alsoPorts?.isEmpty == false else {
                throw BenchError("drain moves the sockets of a draining gateway to the others: give --also-port")
            }
        }
    }
}

/// What a bench run does once its sockets are connected.
public enum Scenario: String, CaseIterable, Sendable, Codable {
    /// Hold every socket authenticated and silent for the duration.
    case idle
    /// Pairs of users ring each other at `rate` calls per second: initiate, incoming, accept, end.
    case ring
    /// Groups of `groupSize` users; one member rings the group at `rate` rings per second and
    /// cancels once every other member got the call.
    case group
    /// Half the sockets ring in pairs at `rate` calls per second while the other half disconnect
    /// and reconnect at `rate` sockets per second.
    case churn
    /// Hold every socket, spread over the gateways, while one of them drains: each socket a
    /// gateway closes with 1012 reconnects to the next gateway when its reconnect hint says.
    case drain
}

/// Why a bench run could not start or run (bad options, fd limit, server unreachable, auth
/// refused); `message` is one line for a person.
public struct BenchError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The reason, one line.
    public let message: String

    /// An error with this reason.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Which local address each socket connects from: 127.0.0.1 ... 127.0.0.N, round robin.
///
/// The kernel gives each local address its own set of ephemeral ports, so spreading sockets over
/// several loopback addresses lifts the limit of one address's port range (about 28,000 on Linux).
/// Spreading only makes sense towards a loopback host; towards any other host, and when one
/// address is enough (up to 5,000 sockets), the plan binds nothing and lets the kernel choose.
public struct SourceAddressPlan: Sendable, Equatable {
    /// The local addresses in use; empty when sockets are not bound (one address, or a
    /// non-loopback host).
    public let addresses: [String]

    /// A plan for `sockets` sockets towards `host` over `requested` addresses (nil: see
    /// `defaultCount`). Each address takes `ceil(sockets / addresses)` sockets, which must fit in
    /// its `ephemeralPorts`. Only a numeric 127.x.x.x host counts as loopback (a name such as
    /// localhost may resolve to ::1, which a 127.0.0.x source cannot reach).
    public init(sockets: Int, addresses requested: Int?, host: String, ephemeralPorts: Int) throws(BenchError) {
        let loopback = Self.isLoopbackIPv4(host)
        let count = requested ?? Self.defaultCount(sockets: sockets, ephemeralPorts: ephemeralPorts)
        guard (1...254).contains(count) else {
            throw BenchError("--addresses must be 1 to 254, got \(count)")
        }
        guard loopback else {
            if let requested, requested > 1 {
                throw BenchError("--addresses spreads sockets over 127.0.0.x and needs a loopback --host (127.x.x.x), got \(host)")
            }
            let perAddress = sockets
            guard perAddress <= ephemeralPorts else {
                throw BenchError("\(sockets) sockets from one address need more than the \(ephemeralPorts) ephemeral ports the kernel offers")
            }
            addresses = []
            return
        }
        let perAddress = (sockets + count - 1) / count
        guard perAddress <= ephemeralPorts else {
            throw BenchError(
                "\(sockets) sockets over \(count) source address(es) need \(perAddress) ports each, but the kernel's ephemeral range has \(ephemeralPorts): raise --addresses")
        }
        addresses = count == 1 ? [] : (1...count).map { "127.0.0.\($0)" }
    }

    /// The address socket `index` binds, or nil to let the kernel choose.
    public func address(for index: Int) -> String? {
        addresses.isEmpty ? nil : addresses[index % addresses.count]
    }

    /// One address per 5,000 sockets, and enough that each keeps within three quarters of its
    /// port range (room for TIME_WAIT after churn). The kernel's search for a free port on each
    /// connect grows with the ports already taken from the same address: at 19,000 sockets,
    /// four addresses connect about twice as fast as one, with half the system time.
    static func defaultCount(sockets: Int, ephemeralPorts: Int) -> Int {
        let share = max(1, ephemeralPorts * 3 / 4)
        let byPorts = (sockets + share - 1) / share
        let bySpeed = (sockets + 4_999) / 5_000
        return min(254, max(1, byPorts, bySpeed))
    }

    static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in UInt8(part) != nil }
    }

    /// The size of the kernel's ephemeral port range, from `ip_local_port_range`; 28,232 (Linux's
    /// default 32768-60999) when it cannot be read.
    public static func ephemeralPortCount(rangeFile: String = "/proc/sys/net/ipv4/ip_local_port_range") -> Int {
        guard let text = try? String(contentsOfFile: rangeFile, encoding: .utf8) else { return 28_232 }
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard bounds.count == 2, bounds[1] >= bounds[0] else { return 28_232 }
        return bounds[1] - bounds[0] + 1
    }
}

/// The process's open-file limit (`RLIMIT_NOFILE`) against the sockets a run wants.
///
/// Every socket is a descriptor; a run that passes the limit would fail somewhere deep inside
/// libwebsockets with EMFILE. This checks first, raises the soft limit to the hard one when that
/// is enough, and otherwise says plainly what the limit is. libwebsockets sizes its descriptor
/// table from the limit when a context is created, so this must run before the client loop starts.
public struct DescriptorLimit: Sendable, Equatable {
    /// Descriptors a run needs besides its sockets: standard streams, the event loop, lws's
    /// wake-up pipe, the admin HTTP client, /proc reads, the JSON and report files.
    public static let reserve = 64

    /// The soft limit now in force.
    public var soft: UInt64
    /// The hard limit, the ceiling an unprivileged process may raise the soft limit to.
    public var hard: UInt64

    /// What to do for a run of `sockets` sockets.
    public enum Decision: Equatable, Sendable {
        /// The soft limit is enough.
        case enough
        /// Raise the soft limit to this value first.
        case raise(to: UInt64)
        /// Not possible; the message says why, in one line.
        case tooLow(String)
    }

    /// Limits read from the process (or given, in tests).
    public init(soft: UInt64, hard: UInt64) {
        self.soft = soft
        self.hard = hard
    }

    /// The limits of this process now.
    public static func current() -> DescriptorLimit {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return DescriptorLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// Whether `sockets` sockets fit, and how.
    public func decision(forSockets sockets: Int) -> Decision {
        let needed = UInt64(sockets + Self.reserve)
        if needed <= soft { return .enough }
        if needed <= hard { return .raise(to: hard) }
        let most = hard > UInt64(Self.reserve) ? hard - UInt64(Self.reserve) : 0
        return .tooLow(
            "--sockets \(sockets) needs about \(needed) file descriptors but this process may open at most \(hard) (ulimit -n hard limit): use --sockets \(most) or fewer, or raise the limit")
    }

    /// Checks and, if needed, raises this process's soft limit for `sockets` sockets.
    public static func ensure(forSockets sockets: Int) throws(BenchError) {
        let limit = current()
        switch limit.decision(forSockets: sockets) {
        case .enough:
            return
        case .raise(let value):
            var raised = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(limit.hard))
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else {
                throw BenchError("cannot raise the open-file limit from \(limit.soft) to \(value): \(String(cString: strerror(errno)))")
            }
        case .tooLow(let message):
            throw BenchError(message)
        }
    }
}
