import CallGateCore
import LWS

/// Everything `GatewayServer` needs to start: where to listen, the secrets, and the limits.
public struct ServerConfiguration: Sendable {
    /// Address to listen on (IP address or interface name).
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (tests).
    public var port = 8080
    /// HS256 secret that signs connection tokens.
    public var jwtSecret: String
    /// Bearer key of the admin API; empty turns the admin routes off.
    public var adminKey: String
    /// Ringing rules, timeouts and grace periods.
    public var core = CoreConfiguration()
    /// Where call logs and groups are kept; the default keeps them in memory for this run only.
    public var store: any CallLogStore = InMemoryCallLogStore()
    /// How long a new socket may take to send `connect` before it is closed with 4001.
    public var authTimeout: Duration = .seconds(10)
    /// Largest incoming message; larger ones close the socket with 1009.
    public var maxMessageBytes = 64 * 1024
    /// Outbound messages a socket may have waiting before it is closed with 4008.
    public var maxQueuedFrames = 512
    /// Kernel keepalive that drops sockets of vanished hosts: probes after 30 s of silence,
    /// every 10 s, gives up after 3 (about a minute in all).
    public var tcpKeepalive: TCPKeepalive? = TCPKeepalive(idleSeconds: 30, intervalSeconds: 10, probes: 3)
    /// Serve wss:// and https:// with this certificate (TLS 1.2 and 1.3 only); nil for plain
    /// ws:// and http://, e.g. behind a reverse proxy that terminates TLS.
    public var tls: ServerTLS?
    /// Reverse proxies whose `X-Forwarded-For` names the client; empty believes no one.
    public var trustedProxies = TrustedProxies()

    public init(jwtSecret: String, adminKey: String) {
        self.jwtSecret = jwtSecret
        self.adminKey = adminKey
    }
}
