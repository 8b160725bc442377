import LWS

/// One simulated device: a user's socket and where it stands. Service thread of the bench loop.
///
/// A plain object per socket (no task, no lock, no buffer of its own), so that 19,000 of them
/// cost little more than libwebsockets' own per-connection state.
final class BenchSocket {
    /// Where a socket stands.
    enum State {
        /// Not open (before the first open, or after a close).
        case closed
        /// TCP and WebSocket handshake under way.
        case opening
        /// `connect` sent, reply not yet in.
        case authenticating
        /// Authenticated: may ring and be rung.
        case ready
        /// Closed on purpose (churn), waiting for the close to finish.
        case closing
        /// The connect phase gave up on it (refused, or `AUTH_ERR`).
        case failed
    }

    /// Its position: user `u<index>`.
    let index: Int
    /// The `connect` frame with its token, built once and sent again on every reconnect. Kept as
    /// bytes: lws masks a client frame's payload in place, so an `OutboundFrame` is good for
    /// one send only.
    let connectFrame: [UInt8]
    /// Local address to connect from, or nil.
    let sourceAddress: String?
    var state = State.closed
    var connection: WebSocketConnection?
    /// When the current open started (monotonic ns), for the connect latency.
    var openedAt: UInt64 = 0
    /// Whether the current open is a reconnect (churn) rather than the connect phase.
    var reopening = false

    init(index: Int, token: String, sourceAddress: String?) {
        self.index = index
        self.connectFrame = RequestFrames.connect(token: token)
        self.sourceAddress = sourceAddress
    }
}
