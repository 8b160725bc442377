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
