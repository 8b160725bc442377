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
        discussion: """
            Every option can also be given by an environment variable, CALLGATE_ and its name in capitals with \
            underscores (CALLGATE_MAX_DEVICES_PER_USER for --max-devices-per-user, each named below), and by a \
            key of the --config file, its name (max-devices-per-user). A flag beats the variable, the variable \
            beats the file, the file beats the default. `callgate config print` shows what the environment and \
            the file give; `callgate config check FILE` checks a file.
            """
    )

    @Option(
        name: .customLong("config"),
        help: "YAML (.yaml, .yml) or JSON (.json) file of settings, its keys named as these options. Default: none. Variable: CALLGATE_CONFIG.")
    var configFile: String?

    @Option(.host) var host: String?
    @Option(.port) var port: Int?
    @Option(.jwtSecret) var jwtSecret: String?
    @Option(.jwtIssuer) var jwtIssuer: String?
    @Option(.jwtAudience) var jwtAudience: String?
    @Option(.adminKey) var adminKey: String?
    @Option(.database) var database: String?
    @Option(.databaseSync) var databaseSync: String?
    @Option(.deadLetterFile) var deadLetterFile: String?
    @Option(.tlsCert) var tlsCert: String?
    @Option(.tlsKey) var tlsKey: String?
    @Option(.trustedProxy) var trustedProxy: [String]
    @Flag(.autoBusy) var autoBusy: Bool?
    @Flag(.webApp) var webApp: Bool?
    @Option(.logLevel) var logLevel: String?
    @Option(.logFormat) var logFormat: String?

    @OptionGroup(title: "Limits")
    var limits: LimitOptions

    @OptionGroup(title: "Webhooks")
    var webhooks: WebhookOptions

    @OptionGroup(title: "Cluster")
    var cluster: ClusterOptions

    @OptionGroup(title: "Token keys")
    var tokenKeys: TokenKeyOptions

    /// Every flag with its setting, given or not.
    var givenFlags: [(ServeSetting, any GivenFlag)] {
        let own: [(ServeSetting, any GivenFlag)] = [
            (.host, host), (.port, port), (.jwtSecret, jwtSecret), (.jwtIssuer, jwtIssuer), (.jwtAudience, jwtAudience),
            (.adminKey, adminKey), (.database, database), (.databaseSync, databaseSync), (.deadLetterFile, deadLetterFile),
            (.tlsCert, tlsCert), (.tlsKey, tlsKey), (.trustedProxy, trustedProxy), (.autoBusy, autoBusy), (.webApp, webApp),
            (.logLevel, logLevel), (.logFormat, logFormat),
        ]
        return own + tokenKeys.given + limits.given + webhooks.given + cluster.given
    }

    func run() async throws {
        let settings: ServeSettings
        do {
            settings = try ServeSettings.resolve(
                flags: givenFlags, filePath: configFile ?? EnvironmentDefault.string(ServeSettings.fileVariable),
                environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure(error.description)
        }
        if settings.text(.logFormat).flatMap({ LogFormat(rawValue: $0) }) == .json {
            LoggingSystem.bootstrap(JSONLogHandler.init)
        }
        var logger = Logger(label: "callgate")
        logger.logLevel = settings.text(.logLevel).flatMap { Logger.Level(rawValue: $0) } ?? .info
        if let file = settings.file {
            logger.info("configuration file read", metadata: ["path": "\(file.path)"])
        }
        for warning in settings.warnings {
            logger.warning("\(warning)")
        }
        var configuration = try Self.configuration(settings, logger: logger)
        let path = Self.databasePath(settings)
        if PostgresLocation.names(path) {
            do {
                let location = try PostgresLocation(path)
                configuration.store = try await PostgresCallLogStore.open(
                    location, logger: logger, owner: configuration.cluster?.nodeID)
                logger.info("call log store: PostgreSQL", metadata: ["database": "\(location)"])
            } catch {
                throw ValidationError("cannot open the database: \(error)")
            }
        } else {
            let sync = settings.text(.databaseSync).flatMap { DatabaseSync(rawValue: $0) } ?? .normal
            do {
                configuration.store = try SQLiteCallLogStore(path: path, durability: sync.durability)
            } catch {
                throw ValidationError("cannot open the database: \(error)")
            }
        }

        // Caught from before the start: a signal that comes while the server starts is kept for
        // when it runs, not lost between the listen line and the wait.
        let signals = TerminationSignals()
        let server = try await GatewayServer.start(configuration, logger: logger)
        printWelcome(
            host: configuration.host, port: server.port, tls: configuration.tls != nil,
            generatedSecret: configuration.mintsDevTokens ? configuration.jwtSecret : nil,
            generatedAdminKey: settings.text(.adminKey) == nil ? configuration.adminKey : nil, webApp: configuration.servesWebApp)
        await Self.drainOnTermination(server, signals: signals, window: configuration.drainWindow, logger: logger)
        let watchdog = ShutdownWatchdog(timeout: configuration.shutdownTimeout, logger: logger)
        let complete = server.stop()
        watchdog.disarm()
        guard complete else {
            logger.error("stopped with call log writes lost")
            throw ExitCode.failure
        }
        logger.info("stopped")
    }

    /// The server's configuration as `settings` make it, every option and every combination of
    /// them checked, before the store is opened (it is left the default): what `serve` runs
    /// with, and what `config check` checks. A secret or admin key not given is a random one.
    static func configuration(_ settings: ServeSettings, logger: Logger) throws -> ServerConfiguration {
        let path = databasePath(settings)
        var configuration = ServerConfiguration(
            jwtSecret: settings.text(.jwtSecret) ?? TokenService.randomSecret(),
            adminKey: settings.text(.adminKey) ?? TokenService.randomSecret())
        configuration.cluster = try ClusterOptions.configuration(
            settings, port: settings.integer(.port) ?? 8080, databaseIsPostgres: PostgresLocation.names(path), logger: logger)
        try TokenKeyOptions.apply(settings, to: &configuration)
        if PostgresLocation.names(path) {
            if settings.content(.databaseSync) != nil {
                throw ValidationError("database-sync is SQLite's: a PostgreSQL commit is as durable as its server makes it")
            }
            do {
                _ = try PostgresLocation(path)
            } catch {
                throw ValidationError("\(settings.spelling(of: .database)): \(error)")
            }
        }
        configuration.deadLetterPath = settings.text(.deadLetterFile)
            ?? (PostgresLocation.names(path) ? "./callgate.dead-letters.jsonl" : path + ".dead-letters.jsonl")
        configuration.jwtIssuer = settings.text(.jwtIssuer)
        configuration.jwtAudience = settings.text(.jwtAudience)
        configuration.host = settings.text(.host) ?? "127.0.0.1"
        configuration.port = settings.integer(.port) ?? 8080
        configuration.core.autoBusy = settings.toggle(.autoBusy) ?? true
        configuration.servesWebApp = settings.toggle(.webApp) ?? true
        try applyEdgeOptions(settings, to: &configuration)
        try LimitOptions.apply(settings, to: &configuration)
        try WebhookOptions.apply(settings, to: &configuration)
        return configuration
    }

    /// The SQLite file or `postgres://` address of the call log.
    static func databasePath(_ settings: ServeSettings) -> String {
        settings.text(.database) ?? "./callgate.sqlite"
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
    private static func drainOnTermination(
        _ server: GatewayServer, signals: TerminationSignals, window: Duration, logger: Logger
    ) async {
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
