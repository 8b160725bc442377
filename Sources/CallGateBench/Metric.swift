/// A latency the generator measures; the raw value is its name in the summary and the JSON.
public enum Metric: String, CaseIterable, Sendable, Codable {
    /// Socket opened until the `connect` reply (TCP + WebSocket handshake + token check).
    case connect
    /// The same for the first 1,000 sockets of the connect phase only.
    case connectFirst1000
    /// The same for the last 1,000: with a fixed number of handshakes in flight, its ratio to
    /// `connectFirst1000` is how much dearer a connect got as the server filled up.
    case connectLast1000
    /// A churned socket's reconnect: opened until the `connect` reply.
    case reconnect
    /// `initiateCall` sent until the callee's `onIncomingCallReceived`.
    case ring
    /// `acceptCall` sent until the caller's `onOutgoingCallAccepted`.
    case accept
    /// `endCall` sent until the callee's `onCallEndedMessageReceived`.
    case end
    /// Group: `initiateCall` sent until one member's `onIncomingCallReceived` (one per delivery).
    case delivery
    /// Group: `initiateCall` sent until the last member of the group got the call.
    case fanout

    /// Which metrics a scenario reports.
    public static func reported(by scenario: Scenario) -> [Metric] {
        switch scenario {
        case .idle: [.connect, .connectFirst1000, .connectLast1000]
        case .ring: [.connect, .ring, .accept, .end]
        case .group: [.connect, .delivery, .fanout]
        case .churn: [.connect, .reconnect, .ring, .accept, .end]
        }
    }
}
