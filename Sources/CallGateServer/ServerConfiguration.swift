import CallGateCore
import LWS

/// Everything `GatewayServer` needs to start: where to listen, the secrets, and the limits.
public struct ServerConfiguration: Sendable {
    /// Address to listen on (IP address or interface name).
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (tests).
    public var port = 8080
    /// HS256 secret that signs call tokens, and that signs and verifies connection tokens
    /// unless `secretVerifiesConnections` is false.
    public var jwtSecret: String
    /// Whether connection tokens signed with `jwtSecret` are accepted: false when `serve` was
    /// given public keys and no secret, and `jwtSecret` (random, or derived from the cluster
    /// secret) only signs call tokens.
    public var secretVerifiesConnections = true
    /// The public keys connection tokens may also be verified with (RS256, ES256, EdDSA).
    public var jwtPublicKeys = TokenKeyConfiguration()
    /// The `iss` every connection token must carry; nil: not checked.
    public var jwtIssuer: String?
    /// The `aud` every connection token must include; nil: not checked.
    public var jwtAudience: String?
    /// Bearer key of the admin API; empty turns the admin routes off.
    public var adminKey: String
    /// Ringing rules, timeouts and grace periods.
    public var core = CoreConfiguration()
    /// Where call logs and groups are kept; the default keeps them in memory for this run only.
    public var store: any CallLogStore = InMemoryCallLogStore()
    /// Cluster mode: this node's id and the Redis the nodes share; nil for a single process.
    public var cluster: ClusterConfiguration?
    /// How long a new socket may take to send `connect` before it is closed with 4001.
    public var authTimeout: Duration = .seconds(10)
    /// Largest incoming message; larger ones close the socket with 1009.
    public var maxMessageBytes = 64 * 1024
    /// Most frames one incoming message may arrive in; more close the socket with 1009.
    public var maxMessageFragments = 64
    /// Devices (connected sockets) one user may have at once; one more `connect` gets
    /// `ERR_TOO_MANY_DEVICES` and close 4009.
    public var maxDevicesPerUser = 10
    /// Outbound messages a socket may have waiting before it is closed with 4008.
    public var maxQueuedFrames = 512
    /// How long each user's pushes are kept for devices that reconnect, and the caps on them:
    /// per user and for the whole process (see `InMemoryPushHistory`).
    public var history = PushHistoryLimits()
    /// Store writes that may wait for the writer; past it, ops that write the call log get
    /// `ERR_STORE_UNAVAILABLE` until the store catches up.
    public var maxQueuedWrites = 100_000
    /// Outputs (frames, closes, HTTP answers) that may wait for store writes to be durable;
    /// past it, ops that write the call log get `ERR_STORE_UNAVAILABLE` until the store catches up.
    public var maxHeldOutput = 100_000
    /// Webhooks for the app's backend: the `default` endpoint and how deliveries are attempted.
    public var webhooks = WebhookConfiguration()
    /// Where writes the store refuses for good are appended (JSON lines), so they block nothing
    /// and are not lost; nil: they are only logged.
    public var deadLetterPath: String?
    /// How often the writer, while idle, checks that the store takes writes (for `/readyz`).
    public var storeProbeInterval: Duration = .seconds(10)
    /// Kernel keepalive that drops sockets of vanished hosts: probes after 30 s of silence,
    /// every 10 s, gives up after 3 (about a minute in all).
    public var tcpKeepalive: TCPKeepalive? = TCPKeepalive(idleSeconds: 30, intervalSeconds: 10, probes: 3)
    /// Serve wss:// and https:// with this certificate (TLS 1.2 and 1.3 only); nil for plain
    /// ws:// and http://, e.g. behind a reverse proxy that terminates TLS.
    public var tls: ServerTLS?
    /// Reverse proxies whose `X-Forwarded-For` names the client; empty believes no one.
    public var trustedProxies = TrustedProxies()
    /// Browser origins (`scheme://host[:port]`) a WebSocket upgrade may come from (others get
    /// 403) and whose pages may read the call log API (CORS). Empty allows any; an upgrade
    /// without `Origin` is always allowed.
    public var allowedOrigins: [String] = []
    /// TCP connections per client address, from accept to close (through a trusted proxy:
    /// WebSockets per forwarded address); the first request of one more gets 429.
    public var maxConnectionsPerAddress = 5000
    /// TCP connections in the process; the first request of one more gets 503. The default is
    /// the soft open-file limit at start less 512 descriptors for everything else.
    public var maxConnections = OpenFileLimit.defaultMaxConnections()
    /// WebSocket frames a socket may send per second on average (a message in one frame is one;
    /// fragments and empty frames count too), in bursts of up to one second's worth; faster
    /// closes it with 4029. 0: no limit.
    public var maxMessagesPerSecond = 50
    /// A socket that sends nothing (no message, no pong) for this long is dropped; quiet
    /// sockets are pinged at half of it. nil: no liveness checks.
    public var livenessInterval: Duration? = .seconds(60)
    /// How long a drain (SIGTERM, `POST /v1/admin/drain`) spreads the sockets' closes over;
    /// zero closes them all at once.
    public var drainWindow: Duration = .seconds(30)
    /// How long `GatewayServer.stop` takes at most: half for the sockets' close handshakes, the
    /// rest for the store writes still queued.
    public var shutdownTimeout: Duration = .seconds(10)
    /// Whether `GET /` and the other files of the web softphone demo are served. Off in
    /// production, where apps bring their own front end.
    public var servesWebApp = true
    /// Whether `POST /dev/token` mints connection tokens for anyone who asks: only for a
    /// development gateway whose secret was generated for the run.
    public var mintsDevTokens = false

    public init(jwtSecret: String, adminKey: String) {
        self.jwtSecret = jwtSecret
        self.adminKey = adminKey
    }
}
