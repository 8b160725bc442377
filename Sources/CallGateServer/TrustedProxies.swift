import Foundation

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
