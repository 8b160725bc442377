import Foundation

/// Which connections and WebSocket upgrades the gateway serves: the caps on connections per
/// process and per client address, and the Origin of upgrades. Pure; the gateway keeps one on
/// its service thread and tells it when connections and sockets open and close.
///
/// Every TCP connection counts in the process's total from accept to close, HTTP or WebSocket,
/// idle or half-sent: each holds a file descriptor. Per address, a connection counts under its
/// TCP peer's address from accept, except one from a trusted proxy, which carries many clients'
/// requests: that one counts per address only once it is a WebSocket, under the client address
/// the proxy forwarded.
struct AdmissionControl {
    let origins: OriginPolicy
    let trustedProxies: TrustedProxies
    private(set) var counts: ConnectionCounts

    init(configuration: ServerConfiguration) {
        origins = OriginPolicy(allowedOrigins: configuration.allowedOrigins)
        trustedProxies = configuration.trustedProxies
        counts = ConnectionCounts(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
    }

    /// Counts a TCP connection accepted from `peer` and returns the cap it passed, nil when it
    /// is served. A refused connection stays counted until `ended`: it holds its descriptor
    /// until its first request is answered.
    mutating func accepted(peer: String) -> LimitEvent? {
        let address = addressCounted(forPeer: peer)
        let limit = counts.limitReached(inTotal: true, address: address)
        counts.add(inTotal: true, address: address)
        return limit
    }

    /// Forgets a connection `accepted(peer:)` counted.
    mutating func ended(peer: String) {
        counts.remove(inTotal: true, address: addressCounted(forPeer: peer))
    }

    /// Why a WebSocket upgrade from `peer` on behalf of `clientAddress` is refused, nil when it
    /// may proceed: an Origin not allowed, or (through a trusted proxy) a client address at its
    /// cap. The connection itself passed its caps when it was accepted.
    func upgradeRefusal(origin: String?, peer: String, clientAddress: String) -> LimitEvent? {
        guard origins.allows(origin) else { return .originRefused }
        guard addressCounted(forPeer: peer) == nil else { return nil }
        return counts.limitReached(inTotal: false, address: clientAddress)
    }

    /// Counts a WebSocket from `peer` on behalf of `clientAddress` under that address when it
    /// came through a trusted proxy; returns the address it was counted under, for
    /// `socketClosed`.
    mutating func socketOpened(peer: String, clientAddress: String) -> String? {
        guard addressCounted(forPeer: peer) == nil else { return nil }
        counts.add(inTotal: false, address: clientAddress)
        return clientAddress
    }

    /// Forgets a socket `socketOpened` counted under `address`.
    mutating func socketClosed(countedUnder address: String) {
        counts.remove(inTotal: false, address: address)
    }

    /// The address a connection from `peer` counts under from accept: the peer's, or nil for a
    /// trusted proxy.
    private func addressCounted(forPeer peer: String) -> String? {
        trustedProxies.trusts(peer: peer) ? nil : peer
    }
}

/// Open connections, in total and per client address, against their caps. Pure; the gateway
/// keeps one on its service thread (in `AdmissionControl`, which decides what counts where).
struct ConnectionCounts {
    let maxTotal: Int
    let maxPerAddress: Int
    private(set) var total = 0
    private var perAddress: [String: Int] = [:]

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Connections counted under `address`.
    func count(for address: String) -> Int {
        perAddress[address, default: 0]
    }

    /// The cap one more connection would pass: the process's when it counts in the total (the
    /// process's is checked first), `address`'s when it is counted under one; nil when it fits.
    func limitReached(inTotal: Bool, address: String?) -> LimitEvent? {
        if inTotal, total >= maxTotal { return .serverFull }
        if let address, count(for: address) >= maxPerAddress { return .addressFull }
        return nil
    }

    /// Counts one more connection, in the total when `inTotal`, under `address` when given.
    mutating func add(inTotal: Bool, address: String?) {
        if inTotal { total += 1 }
        if let address { perAddress[address, default: 0] += 1 }
    }

    /// Forgets one connection counted with the same arguments; an address with none left is
    /// dropped from the table, and a count never goes below zero.
    mutating func remove(inTotal: Bool, address: String?) {
        if inTotal, total > 0 { total -= 1 }
        guard let address, let count = perAddress[address] else { return }
        perAddress[address] = count > 1 ? count - 1 : nil
    }
}

/// Which browser origins may open a socket (`--allowed-origin`), and read the call log API
/// (`CrossOrigin.swift`).
///
/// Browsers send `Origin` on every WebSocket upgrade and let any page open a socket to any
/// host, so the list is what keeps other sites' pages out. Clients that are not browsers send
/// no Origin (or one they choose), so an upgrade without one is always allowed: the token in
/// `connect` is what authenticates. Origins compare as `scheme://host[:port]`, case-insensitive,
/// ignoring a trailing slash.
struct OriginPolicy {
    private let allowed: Set<String>

    /// An empty list allows every origin.
    init(allowedOrigins: [String]) {
        allowed = Set(allowedOrigins.map(Self.normalized))
    }

    /// Whether an upgrade carrying this `Origin` header (nil: none) may proceed.
    func allows(_ origin: String?) -> Bool {
        guard let origin, !allowed.isEmpty else { return true }
        return allowed.contains(Self.normalized(origin))
    }

    static func normalized(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// A limit the gateway enforced on a client: what it logs, and the HTTP refusal of an upgrade.
enum LimitEvent: Hashable {
    /// An upgrade from a browser Origin not in `--allowed-origin`: 403.
    case originRefused
    /// The client address already has `--max-connections-per-address` sockets open: 429.
    case addressFull
    /// The process already has `--max-connections` sockets open: 503.
    case serverFull
    /// A socket sent more than `--max-messages-per-second`: closed with 4029.
    case rateLimited
    /// A user with `--max-devices-per-user` sockets connected one more: closed with 4009.
    case tooManyDevices

    /// The log line, followed by how many such events it reports.
    var logMessage: String {
        switch self {
        case .originRefused: "refused WebSocket upgrades from an origin not allowed"
        case .addressFull: "refused WebSocket upgrades: the client address has too many sockets open"
        case .serverFull: "refused WebSocket upgrades: the process has the most sockets it may hold"
        case .rateLimited: "closed sockets that sent messages too fast"
        case .tooManyDevices: "closed sockets of users who have the most devices they may connect"
        }
    }

    /// The response to an upgrade refused for this reason (`rateLimited` and `tooManyDevices`
    /// never refuse one: they close an open socket).
    var refusal: HTTPResponse {
        switch self {
        case .originRefused:
            .error(403, .originNotAllowed, "this origin may not open a WebSocket here")
        case .addressFull:
            .error(429, .tooManyConnections, "too many WebSockets open from your address")
        case .serverFull, .rateLimited, .tooManyDevices:
            .error(503, .serverFull, "the gateway holds as many WebSockets as it may; try another instance or later")
        }
    }
}

/// Keeps a flood of one kind of event out of the log: the first event is logged at once, the
/// ones after it are counted and reported together, at most one line per `periodMillis`.
/// Pure: the caller passes the time (milliseconds of a monotonic clock).
struct BurstLog {
    let periodMillis: Int64
    private var lastLineMillis: Int64?
    private var unreported = 0

    init(periodMillis: Int64) {
        self.periodMillis = periodMillis
    }

    /// Records one event at `now`; returns how many events a log line written now should report
    /// (this one and those held back since the last line), or nil to stay quiet.
    mutating func record(now: Int64) -> Int? {
        unreported += 1
        if let lastLineMillis, now - lastLineMillis < periodMillis { return nil }
        lastLineMillis = now
        defer { unreported = 0 }
        return unreported
    }
}
