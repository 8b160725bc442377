import ArgumentParser
import CallGateServer
import CallGateStorePostgres
import CallGateStoreSQLite
import Foundation
import Logging

/// `callgate serve`: runs the gateway until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway.",
        discussion: "Each option can also come from the environment: CALLGATE_HOST, CALLGATE_PORT, CALLGATE_JWT_SECRET, CALLGATE_JWT_ISSUER, CALLGATE_JWT_AUDIENCE, CALLGATE_ADMIN_KEY, CALLGATE_DATABASE, CALLGATE_DATABASE_SYNC, CALLGATE_CLUSTER, CALLGATE_NODE_ID, CALLGATE_TLS_CERT, CALLGATE_TLS_KEY, CALLGATE_TRUSTED_PROXY (comma-separated), CALLGATE_WEB_APP (on or off), and for the limits CALLGATE_ALLOWED_ORIGINS, CALLGATE_MAX_CONNECTIONS, CALLGATE_MAX_CONNECTIONS_PER_ADDRESS, CALLGATE_MAX_MESSAGES_PER_SECOND, CALLGATE_MAX_MESSAGE_BYTES, CALLGATE_MAX_MESSAGE_FRAGMENTS, CALLGATE_MAX_QUEUED_FRAMES, CALLGATE_MAX_DEVICES_PER_USER, CALLGATE_MAX_SESSIONS_PER_USER, CALLGATE_MAX_CALLS_PER_MINUTE, CALLGATE_MAX_RECORDINGS_PER_SESSION, CALLGATE_LIVENESS_INTERVAL, CALLGATE_SHUTDOWN_TIMEOUT, and for webhooks CALLGATE_WEBHOOK_URL, CALLGATE_WEBHOOK_SECRET, CALLGATE_WEBHOOK_TIMEOUT, CALLGATE_WEBHOOK_RETRY_SCHEDULE, CALLGATE_WEBHOOK_RETRY_PERIOD, CALLGATE_WEBHOOK_CONCURRENCY, CALLGATE_WEBHOOK_RETENTION, CALLGATE_WEBHOOK_CA_FILE."
    )

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "TCP port (default 8080; 0 picks a free one).")
    var port: Int?

    @Option(name: .customLong("jwt-secret"), help: "HS256 secret of connection tokens (default: a random one for this run).")
    var jwtSecret: String?

    @Option(name: .customLong("jwt-issuer"), help: "Require this iss claim in connection tokens (default: not checked).")
    var jwtIssuer: String?

    @Option(name: .customLong("jwt-audience"), help: "Require connection tokens whose aud claim includes this (default: not checked).")
    var jwtAudience: String?

    @Option(name: .customLong("admin-key"), help: "Bearer key of the admin API (default: a random one for this run).")
    var adminKey: String?

    @Option(help: "SQLite file of call logs and groups, created if missing (default ./callgate.sqlite), or a PostgreSQL server: postgres://user:password@host:port/database[?sslmode=disable|prefer|require|verify-full].")
    var database: String?

    @Option(
        name: .customLong("dead-letter-file"),
        help: "File (JSON lines) where call log writes the store refuses for good are set aside (default: the database path + .dead-letters.jsonl).")
    var deadLetterFile: String?

    @Option(
        name: .customLong("database-sync"),
        help: "normal: a commit survives a crash of the process (SIGKILL, OOM); full: also a power loss, at one fsync per commit (default normal).")
    var databaseSync: DatabaseSync?

    @Option(name: .customLong("tls-cert"), help: "PEM certificate (full chain): serve wss:// and https:// (TLS 1.2 and 1.3) instead of ws:// and http://. Needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: "CIDR of a reverse proxy whose X-Forwarded-For names the client, e.g. 127.0.0.1/32 (repeatable, IPv4 or IPv6).")
    var trustedProxy: [String] = []

    @Flag(name: .customLong("no-auto-busy"), help: "Ring users who are already in a call instead of answering busy.")
    var noAutoBusy = false

    @Flag(name: .customLong("no-web-app"), help: "Do not serve the web softphone demo at / (or set CALLGATE_WEB_APP=off); for production.")
    var noWebApp = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("log-format"), help: "text (default), or json: one JSON object per line (or CALLGATE_LOG_FORMAT).")
    var logFormat: LogFormat?

    @OptionGroup(title: "Limits")
    var limits: LimitOptions

    @OptionGroup(title: "Webhooks")
    var webhooks: WebhookOptions

    @OptionGroup(title: "Cluster")
    var cluster: ClusterOptions

    @OptionGroup(title: "Token keys")
    var tokenKeys: TokenKeyOptions

    func run() async throws {
        let host = host ?? EnvironmentDefault.string("CALLGATE_HOST") ?? "127.0.0.1"
        let port = try port ?? EnvironmentDefault.string("CALLGATE_PORT").map(Self.parsePort) ?? 8080
        guard (0...65535).contains(port) else {
            throw ValidationError("the port must be a number from 0 to 65535")
        }
        let givenSecret = jwtSecret ?? EnvironmentDefault.string("CALLGATE_JWT_SECRET")
        let secret = givenSecret ?? TokenService.randomSecret()
        let givenAdminKey = adminKey ?? EnvironmentDefault.string("CALLGATE_ADMIN_KEY")
        let key = givenAdminKey ?? TokenService.randomSecret()

        let format = try logFormat ?? EnvironmentDefault.string("CALLGATE_LOG_FORMAT").map { text in
            guard let format = LogFormat(rawValue: text) else {
                throw ValidationError("CALLGATE_LOG_FORMAT must be text or json, got '\(text)'")
            }
            return format
        } ?? .text
        if format == .json {
            LoggingSystem.bootstrap(JSONLogHandler.init)
        }
        var logger = Logger(label: "callgate")
        logger.logLevel = logLevel
        let path = database ?? EnvironmentDefault.string("CALLGATE_DATABASE") ?? "./callgate.sqlite"
        let sync = try databaseSync ?? EnvironmentDefault.string("CALLGATE_DATABASE_SYNC").map(DatabaseSync.parse) ?? .normal

        var configuration = ServerConfiguration(jwtSecret: secret, adminKey: key)
        configuration.cluster = try cluster.configuration(
            port: port, databaseIsPostgres: PostgresLocation.names(path), logger: logger)
        try tokenKeys.apply(to: &configuration, givenSecret: givenSecret, clusterSecret: cluster.givenSecret)
        let deadLetterDefault: String
        if PostgresLocation.names(path) {
            if databaseSync != nil {
                throw ValidationError("--database-sync is SQLite's: a PostgreSQL commit is as durable as its server makes it")
            }
            do {
                let location = try PostgresLocation(path)
                configuration.store = try await PostgresCallLogStore.open(
                    location, logger: logger, owner: configuration.cluster?.nodeID)
                logger.info("call log store: PostgreSQL", metadata: ["database": "\(location)"])
            } catch {
                throw ValidationError("cannot open the database: \(error)")
            }
            deadLetterDefault = "./callgate.dead-letters.jsonl"
        } else {
            do {
                configuration.store = try SQLiteCallLogStore(path: path, durability: sync.durability)
            } catch {
                throw ValidationError("cannot open the database: \(error)")
            }
            deadLetterDefault = path + ".dead-letters.jsonl"
        }
        configuration.deadLetterPath = deadLetterFile ?? EnvironmentDefault.string("CALLGATE_DEAD_LETTER_FILE") ?? deadLetterDefault
        configuration.jwtIssuer = jwtIssuer ?? EnvironmentDefault.string("CALLGATE_JWT_ISSUER")
        configuration.jwtAudience = jwtAudience ?? EnvironmentDefault.string("CALLGATE_JWT_AUDIENCE")
        configuration.host = host
        configuration.port = port
        configuration.core.autoBusy = !noAutoBusy
        configuration.servesWebApp = try !noWebApp && Self.webAppSetting()
        try applyEdgeOptions(to: &configuration)
        try limits.apply(to: &configuration)
        try webhooks.apply(to: &configuration)

        let server = try await GatewayServer.start(configuration, logger: logger)
        printWelcome(
            host: host, port: server.port, tls: configuration.tls != nil, generatedSecret: configuration.mintsDevTokens ? secret : nil,
            generatedAdminKey: givenAdminKey == nil ? key : nil, webApp: configuration.servesWebApp)
        await Self.drainOnTermination(server, window: configuration.drainWindow, logger: logger)
        let watchdog = ShutdownWatchdog(timeout: configuration.shutdownTimeout, logger: logger)
        let complete = server.stop()
        watchdog.disarm()
        guard complete else {
            logger.error("stopped with call log writes lost")
            throw ExitCode.failure
        }
        logger.info("stopped")
    }

    /// CALLGATE_WEB_APP: on (default) or off.
    private static func webAppSetting() throws -> Bool {
        switch EnvironmentDefault.string("CALLGATE_WEB_APP")?.lowercased() {
        case nil, "on", "1", "true": true
        case "off", "0", "false": false
        case let other?: throw ValidationError("CALLGATE_WEB_APP must be on or off, got '\(other)'")
        }
    }

    private static func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text) else { throw ValidationError("CALLGATE_PORT must be a number, got '\(text)'") }
        return port
    }

    private func printWelcome(
        host: String, port: Int, tls: Bool, generatedSecret: String?, generatedAdminKey: String?, webApp: Bool
    ) {
        let (ws, http) = tls ? ("wss", "https") : ("ws", "http")
        print("CallGate is listening on \(ws)://\(host):\(port)/ws (admin API and /healthz on \(http)://\(host):\(port))")
        if webApp {
            let signIn = generatedSecret == nil ? "paste a token to sign in" : "sign in as any user name"
            print("Web softphone demo: \(http)://\(host):\(port)/ (\(signIn))")
        }
        if let generatedSecret {
            print("No --jwt-secret given: this run signs tokens with a random secret. Make a token with:")
            print("  \(CommandLine.arguments[0]) token --uid alice --name Alice --jwt-secret \(generatedSecret)")
        }
        if let generatedAdminKey {
            print("No --admin-key given: this run's admin key is \(generatedAdminKey)")
        }
        fflush(nil)
    }

    /// Waits for SIGTERM or SIGINT. SIGTERM (what systemd, Docker and Kubernetes send) drains
    /// the node over `window` first; SIGINT, or a second signal during the drain, goes
    /// straight on to stopping.
    private static func drainOnTermination(_ server: GatewayServer, window: Duration, logger: Logger) async {
        let signals = TerminationSignals()
        let (events, feed) = AsyncStream.makeStream(of: Int32?.self)
        let received = signals.received
        Task {
            for await number in received { feed.yield(number) }
        }
        defer { withExtendedLifetime(signals) {} }
        var next = events.makeAsyncIterator()
        guard let first = await next.next(), first == SIGTERM else {
            logger.info("SIGINT received, stopping")
            return
        }
        logger.notice("SIGTERM received: draining, then stopping; send SIGTERM or SIGINT again to stop at once",
                      metadata: ["seconds": "\(window.components.seconds)"])
        server.drain { feed.yield(nil) }
        if case let number?? = await next.next() {
            logger.notice("signal received during the drain, stopping at once", metadata: ["signal": "\(number)"])
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
