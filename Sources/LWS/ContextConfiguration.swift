/// How an `LWSContext` is set up: as a server listening on an address, or as a client-only context.
public struct ContextConfiguration: Sendable {
    /// Where a server context listens; nil for a client-only context.
    public var listen: ListenAddress?
    /// The WebSocket subprotocol spoken (also accepted when the client names none).
    public var protocolName: String
    /// The only path a WebSocket upgrade is accepted on (server side).
    public var webSocketPath = "/ws"
    /// lws receive buffer per connection: small keeps per-socket memory low.
    public var rxBufferSize = 1024
    /// Most bytes one write hands the kernel (lws's `tx_packet_size`); lws keeps the rest and
    /// sends it when the socket is writable. Left at 0, lws would cap each write at
    /// `rxBufferSize`, splitting every larger frame into a short write and a copied tail.
    public var maxWriteBytes = 64 * 1024
    /// Largest reassembled incoming message; a larger one closes the socket with `messageTooBigCloseCode`.
    public var maxMessageBytes = 64 * 1024
    /// Close code for an over-size message, or one of more than `maxMessageFragments` frames.
    public var messageTooBigCloseCode: UInt16 = 1009
    /// Most frames one message may arrive in: each costs a callback, so a peer sending endless
    /// empty continuations is cut off here even under the size cap.
    public var maxMessageFragments = 64
    /// What an HTTP request asking to upgrade to anything but `websocket` (e.g. `h2c`) gets
    /// instead of the 101: the gateway speaks HTTP/1.1 and WebSocket only, so no request can
    /// switch to a protocol that the reverse proxy and this server's own routes do not check.
    public var foreignUpgradeRefusal = UpgradeDecision.refuse(
        status: 400, contentType: "text/plain; charset=utf-8", body: Array("only WebSocket upgrades are served\n".utf8))
    /// Outbound messages one connection may have waiting before it counts as a slow consumer.
    public var maxQueuedFrames = 1024
    /// Close code for a slow consumer.
    public var slowConsumerCloseCode: UInt16 = 4008
    /// Largest HTTP request body kept; the handler sees `bodyTooLarge` beyond it.
    public var maxHTTPBodyBytes = 64 * 1024
    /// Kernel TCP keepalive on every socket, or nil for none: finds vanished hosts with no
    /// timer of ours or of lws per connection.
    public var tcpKeepalive: TCPKeepalive?
    /// Serve TLS on the listening port (server contexts), or nil for plain ws:// and http://.
    public var tls: ServerTLS?
    /// Let connections of this context use TLS (client contexts), trusting these certificates;
    /// nil for plain ws:// only.
    public var clientTLS: ClientTLSTrust?
    /// Server side: how long a peer may stay silent (no message, no pong) before it is dropped,
    /// found by one periodic sweep (see `LivenessMonitor`); nil for no liveness checks.
    public var livenessInterval: Duration?
    /// The first connection id is this plus one: a cluster node puts its node number in the
    /// high bits, so that ids are unique across nodes and name the node that holds the socket.
    public var connectionIDBase: UInt64 = 0

    public init(listen: ListenAddress?, protocolName: String) {
        self.listen = listen
        self.protocolName = protocolName
    }
}

/// A host (IP address or interface name) and TCP port; port 0 picks a free port.
public struct ListenAddress: Sendable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// TCP keepalive settings: probe after `idleSeconds` of silence, every `intervalSeconds`,
/// and drop the socket after `probes` unanswered probes.
public struct TCPKeepalive: Sendable {
    public var idleSeconds: Int
    public var intervalSeconds: Int
    public var probes: Int

    public init(idleSeconds: Int, intervalSeconds: Int, probes: Int) {
        self.idleSeconds = idleSeconds
        self.intervalSeconds = intervalSeconds
        self.probes = probes
    }
}
