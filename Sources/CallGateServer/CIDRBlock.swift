import Foundation

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
