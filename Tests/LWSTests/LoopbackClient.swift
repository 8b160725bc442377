import LWS

/// A client context with one WebSocket to a test server, and the events it saw.
final class LoopbackClient: @unchecked Sendable {
    private let context: LWSContext
    private let probe = ClientProbe()
    private var events: AsyncStream<ClientProbe.Event>.Iterator
    /// The socket; touched on the client's service thread only.
    private var connection: WebSocketConnection?

    /// Starts a client context and connects to `target` (the result is the first event);
    /// `trust` lets the context make wss connections.
    init(_ target: ClientTarget, trust: ClientTLSTrust? = nil) throws {
        var configuration = ContextConfiguration(listen: nil, protocolName: "test.v1")
        configuration.clientTLS = trust
        context = LWSContext(configuration: configuration)
        events = probe.events.makeAsyncIterator()
        try context.start(webSocketDelegate: probe)
        context.post { [self] in
            connection = try? context.connect(to: target)
        }
    }

    /// Sends one text message.
    func send(_ bytes: [UInt8]) {
        context.post { [self] in
            connection?.send(OutboundFrame(bytes))
        }
    }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Closes the socket with `code`.
    func close(code: UInt16) {
        context.post { [self] in
            connection?.close(code: code, reason: "done")
        }
    }

    /// The next thing the socket saw.
    func next() async -> ClientProbe.Event? {
        await events.next()
    }

    func stop() {
        context.stop()
    }
}
