import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reverse proxies whose `X-Forwarded-For` header the gateway believes, and the walk that
/// finds a client's real address through them.
///
/// A proxy appends the address it was connected from to `X-Forwarded-For`, so the header reads
/// left to right from the client towards the gateway, and only its right end is written by
/// proxies we run: anything left of that may be what the client made up. The walk therefore
/// starts at the TCP peer and goes right to left for as long as each hop is a trusted proxy;
/// the first address that is not one is the client. Pure value, any thread.
public struct TrustedProxies: Sendable, Equatable {
    let blocks: [CIDRBlock]

    /// No trusted proxy: the TCP peer is always the client.
    public init() {
        blocks = []
    }

    /// Proxies in these networks (`127.0.0.1/32`, `10.0.0.0/8`, `fd00::/8`, or bare addresses).
    /// Throws an error whose description names the entry that did not parse.
    public init(_ cidrs: [String]) throws {
        blocks = try cidrs.map { try CIDRBlock($0) }
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { blocks.isEmpty }

    /// The networks, as given (host bits cleared), for logs and messages.
    public var networks: [String] { blocks.map(\.description) }

    /// Whether `address` is in one of the trusted networks.
    func trusts(_ address: IPAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }

    /// Whether `peer` (an address as the socket layer reports it) is a trusted proxy.
    func trusts(peer: String) -> Bool {
        guard !blocks.isEmpty, let address = IPAddress(peer) else { return false }
        return trusts(address)
    }

    /// The client's address: `peer` itself unless `peer` is a trusted proxy; then the
    /// right-most address of `forwardedFor` that is not a trusted proxy. When every hop is
    /// trusted, the left-most one; when the walk meets an entry that is not an IP address, the
    /// last address it trusted (that proxy sent the garbage, so nothing beyond it is known).
    public func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard !blocks.isEmpty, let peerAddress = IPAddress(peer), trusts(peerAddress), let forwardedFor else {
            return peer
        }
        var nearest = peerAddress
        for entry in forwardedFor.split(separator: ",").reversed() {
            guard let hop = Self.address(inForwardedEntry: entry) else { return nearest.description }
            guard trusts(hop) else { return hop.description }
            nearest = hop
        }
        return nearest.description
    }

    /// The address of one `X-Forwarded-For` entry: `192.0.2.7`, `2001:db8::1`, and the forms
    /// some proxies write with a port, `192.0.2.7:4711` and `[2001:db8::1]:4711`.
    static func address(inForwardedEntry entry: Substring) -> IPAddress? {
        let text = entry.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), Self.isPortSuffix(text[text.index(after: close)...]) else {
                return nil
            }
            return IPAddress(text[text.index(after: text.startIndex)..<close])
        }
        if let address = IPAddress(text) {
            return address
        }
        guard let colon = text.firstIndex(of: ":"), Self.isPortSuffix(text[colon...]),
            let address = IPAddress(text[..<colon]), address.isIPv4
        else { return nil }
        return address
    }

    /// Whether `text` is empty or `:` and a port number.
    private static func isPortSuffix(_ text: Substring) -> Bool {
        guard let colon = text.first else { return true }
        let digits = text.dropFirst()
        return colon == ":" && !digits.isEmpty && digits.count <= 5 && digits.allSatisfy { ("0"..."9").contains($0) }
    }
}

/// An IP network such as `10.0.0.0/8` or `2001:db8::/32`; a bare address is a network of one.
///
/// Pure value, any thread. Used to say which peers are trusted reverse proxies.
struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
    /// Why a CIDR did not parse, in words fit for a command-line error.
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    /// The network address, with the host bits cleared.
    let network: IPAddress
    /// How many leading bits must match: 0...32 for IPv4, 0...128 for IPv6.
    let prefixLength: Int

    /// Parses `address/length` or a bare `address` (IPv4 or IPv6).
    init(_ text: some StringProtocol) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw ParseError(description: "'\(trimmed)' is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8)")
        }
        let maximum = address.bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard parts[1].allSatisfy({ ("0"..."9").contains($0) }), let parsed = Int(parts[1]), parsed <= maximum else {
                throw ParseError(description: "'\(trimmed)': the prefix length must be 0 to \(maximum)")
            }
            length = parsed
        }
        prefixLength = length
        network = address.masked(toPrefix: length)
    }

    /// Whether `address` lies in this network (never across IPv4 and IPv6).
    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        return address.masked(toPrefix: prefixLength) == network
    }

    var description: String { "\(network)/\(prefixLength)" }
}

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16), parsed from text.
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, what an IPv6 socket reports for an IPv4
/// peer) is kept as the IPv4 address, so it matches IPv4 networks. Pure value; any thread.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    /// Parses dotted IPv4 or textual IPv6 (no brackets, port or zone); nil for anything else.
    init?(_ text: some StringProtocol) {
        let string = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        bytes = all.starts(with: mappedPrefix) ? Array(all[12...]) : all
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// This address with every bit after the first `prefix` bits cleared.
    func masked(toPrefix prefix: Int) -> IPAddress {
        IPAddress(bytes: bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, prefix - index * 8))
            return kept == 0 ? 0 : byte & ~(UInt8.max >> kept)
        })
    }

    /// Whether this is an IPv4 address.
    var isIPv4: Bool { bytes.count == 4 }

    /// The canonical text (`inet_ntop`): safe to log, whatever text it was parsed from.
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
