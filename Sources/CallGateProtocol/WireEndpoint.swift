/// Where and how protocol v1 is spoken: the WebSocket path and subprotocol, shared by the
/// gateway and every client.
public enum WireEndpoint {
    /// The path of the WebSocket endpoint.
    public static let path = "/ws"
    /// The WebSocket subprotocol (a handshake without one is accepted too).
    public static let subprotocol = "callgate.v1"
}
