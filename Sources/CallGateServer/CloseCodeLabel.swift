/// The `code` label of `callgate_sockets_closed_total`: how a socket ended, as a close code.
///
/// Codes the gateway closes with are a small set it chooses, so they are used as they are. A
/// peer may send any code, so only the standard ones (1000 to 1015) are kept and the rest
/// become `other`: a client cannot make the series grow without bound. Pure; any thread.
enum CloseCodeLabel {
    /// The labels listed (at 0) before any socket closed that way.
    static let common = ["1000", "1001", "1005", "1006", "1009", "4001", "4008"]

    /// The label for a socket that this side closed with `local`, or whose peer sent `peer`
    /// (`peerSentClose` with no code: 1005); 1006, as RFC 6455 has it, when no close frame was
    /// exchanged at all (the connection dropped).
    static func label(local: UInt16?, peer: UInt16?, peerSentClose: Bool) -> String {
        if let local {
            return String(local)
        }
        if let peer {
            return (1000...1015).contains(peer) ? String(peer) : "other"
        }
        return peerSentClose ? "1005" : "1006"
    }
}
