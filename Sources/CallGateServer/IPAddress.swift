#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
