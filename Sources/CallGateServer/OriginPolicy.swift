import Foundation

/// Which browser origins may open a socket (`--allowed-origin`).
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
