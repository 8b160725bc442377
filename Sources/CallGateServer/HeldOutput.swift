import CallGateCore
import LWS

/// One output of the service that the `OutputGate` may hold back.
enum HeldOutput {
    /// A frame for a socket (dropped if the socket closed meanwhile).
    case frame(ConnectionID, OutboundFrame)
    /// Closing a socket with a code, after the frames before it.
    case close(ConnectionID, code: UInt16, reason: String)
    /// An HTTP response.
    case http(ServiceThreadBox<HTTPExchange>, HTTPResponse)
    /// The ring frames of an `initiateCall` taken up at `since` were handed to the sockets just
    /// before: performing it records the ring latency.
    case ringHandedOver(since: ContinuousClock.Instant)

    /// The socket it goes to; nil for an HTTP response or a marker.
    var connection: ConnectionID? {
        switch self {
        case .frame(let id, _), .close(let id, _, _): id
        case .http, .ringHandedOver: nil
        }
    }
}
