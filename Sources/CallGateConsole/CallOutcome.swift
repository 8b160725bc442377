/// How a `callgate call` ended.
public enum CallOutcome: Sendable, Equatable {
    /// The other side declined, was busy, did not answer, or hung up.
    case endedByPeer
    /// We hung up or cancelled (Ctrl-C).
    case hungUp
    /// The gateway closed the socket.
    case connectionLost
}
