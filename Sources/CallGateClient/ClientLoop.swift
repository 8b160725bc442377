import CallGateProtocol
import LWS

/// One client-side libwebsockets context and its service thread, shared by many `CallGateClient`s.
///
/// A test, the CLI or the load generator makes one loop and opens any number of sockets on it.
public final class ClientLoop: Sendable {
    let context: LWSContext

    /// Starts the service thread.
    public init() throws {
        context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: WireEndpoint.subprotocol))
        try context.start(webSocketDelegate: ClientSocketRouter())
    }

    /// Closes every socket of this loop and ends its thread. Not from inside a client callback.
    public func stop() {
        context.stop()
    }
}
