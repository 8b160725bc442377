import Foundation

/// Which addresses a webhook may be posted to: none inside the network the gateway runs in
/// (loopback, private, shared, link-local with the cloud metadata services, unique-local,
/// multicast, reserved), so an admin key cannot turn the deliveries list into a port scanner of
/// the gateway's network. `--webhook-allow-private-networks` turns the rules off (development).
///
/// Pure; any thread.
enum WebhookAddressRules {
    /// What kind of address `bytes` (4 bytes of IPv4 or 16 of IPv6) is when webhooks may not
    /// go to it ("loopback", "private", ...); nil when they may.
    static func forbiddenKind(_ bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4: return forbiddenKind(v4: bytes)
        case 16: return forbiddenKind(v6: bytes)
        default: return "not an IP address"
        }
    }

    private static func forbiddenKind(v4 a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): "this-network"
        case (10, _), (172, 16...31), (192, 168): "private"
        case (100, 64...127): "shared (carrier-grade NAT, cloud metadata)"
        case (127, _): "loopback"
        case (169, 254): "link-local (cloud metadata)"
        case (192, 0) where a[2] == 0: "IETF protocol assignment"
        case (198, 18...19): "benchmarking"
        case (224...239, _): "multicast"
        case (240...255, _): "reserved or broadcast"
        default: nil
        }
    }

    private static func forbiddenKind(v6 a: [UInt8]) -> String? {
        let embedded = Array(a[12..<16])
        if a[0..<10].allSatisfy({ $0 == 0 }), a[10] == 0xff, a[11] == 0xff {
            return forbiddenKind(v4: embedded)  // ::ffff:a.b.c.d
        }
        if a[0..<8].allSatisfy({ $0 == 0 }), a[8] == 0xff, a[9] == 0xff, a[10] == 0, a[11] == 0 {
            return forbiddenKind(v4: embedded)  // ::ffff:0:a.b.c.d (SIIT)
        }
        if a[0..<12].allSatisfy({ $0 == 0 }) {
            return embedded == [0, 0, 0, 1] ? "loopback" : "unspecified or IPv4-compatible"
        }
        if a[0] == 0x00, a[1] == 0x64, a[2] == 0xff, a[3] == 0x9b, a[4..<12].allSatisfy({ $0 == 0 }) {
            return forbiddenKind(v4: embedded)  // NAT64 64:ff9b::a.b.c.d
        }
        if a[0] == 0x00, a[1] == 0x64, a[2] == 0xff, a[3] == 0x9b, a[4] == 0x00, a[5] == 0x01 {
            return "local-use NAT64"  // 64:ff9b:1::/48, translated inside the network
        }
        if a[0] == 0x20, a[1] == 0x02 {
            return forbiddenKind(v4: Array(a[2..<6]))  // 6to4 2002:aabb:ccdd::
        }
        switch a[0] {
        case 0xfc, 0xfd: return "unique-local (cloud metadata)"
        case 0xfe where a[1] & 0xc0 == 0x80: return "link-local"
        case 0xfe where a[1] & 0xc0 == 0xc0: return "site-local"
        case 0xff: return "multicast"
        default: return nil
        }
    }

    /// The addresses `host` stands for, resolved now (`getaddrinfo`: DNS, /etc/hosts, or the
    /// host itself when it is an address in any notation, such as `127.1` or `0x7f000001`).
    /// `numericOnly`: only an address written as one, no lookup; none for a name then. Blocks.
    static func addresses(of host: String, numericOnly: Bool = false) throws(WebhookAddressError) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        if numericOnly {
            hints.ai_flags = AI_NUMERICHOST
        }
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            if numericOnly, status == EAI_NONAME { return [] }
            throw .unresolved(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var found: [[UInt8]] = []
        var entry = list
        while let info = entry?.pointee {
            if let address = info.ai_addr {
                switch Int32(info.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        withUnsafeBytes(of: v4.pointee.sin_addr) { found.append(Array($0)) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        withUnsafeBytes(of: v6.pointee.sin6_addr) { found.append(Array($0)) }
                    }
                default:
                    break
                }
            }
            entry = info.ai_next
        }
        return found
    }

    /// Why a URL naming `host` may never be posted to, known without a lookup: an address
    /// written in it is forbidden, or the name is `localhost`. nil otherwise (a name is checked
    /// again at each connection).
    static func literalProblem(host: String) -> String? {
        let bare = unbracketed(host)
        let lowered = bare.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") {
            return "\(host) is a loopback name; \(allowFlag) allows it"
        }
        guard let addresses = try? addresses(of: bare, numericOnly: true) else { return nil }
        for address in addresses {
            if let kind = forbiddenKind(address) {
                return "\(host) is a \(kind) address; \(allowFlag) allows it"
            }
        }
        return nil
    }

    /// The first address of `host` webhooks may go to. Throws when it resolves to none, or
    /// only to forbidden ones. Blocks (a DNS lookup).
    static func allowedAddress(of host: String) throws(WebhookAddressError) -> [UInt8] {
        let addresses = try addresses(of: unbracketed(host))
        if let allowed = addresses.first(where: { forbiddenKind($0) == nil }) {
            return allowed
        }
        guard let first = addresses.first else { throw .unresolved(host: host, reason: "no address") }
        throw .forbidden(host: host, address: text(first), kind: forbiddenKind(first) ?? "")
    }

    /// `host` without the brackets of an IPv6 address in a URL.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// `bytes` written as an address: dotted IPv4 or IPv6 without brackets.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The flag that turns the rules off.
    static let allowFlag = "--webhook-allow-private-networks"
}

/// Why a webhook host cannot be posted to.
enum WebhookAddressError: Error, CustomStringConvertible {
    /// The name does not resolve.
    case unresolved(host: String, reason: String)
    /// It resolves only to addresses inside the network.
    case forbidden(host: String, address: String, kind: String)

    var description: String {
        switch self {
        case .unresolved(let host, let reason):
            "\(host) does not resolve (\(reason))"
        case .forbidden(let host, let address, let kind):
            "refused: \(host) resolves to \(address), a \(kind) address (\(WebhookAddressRules.allowFlag) allows it)"
        }
    }
}
