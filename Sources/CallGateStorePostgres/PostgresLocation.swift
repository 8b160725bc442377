import Foundation
import Logging
import PostgresNIO

/// Where a PostgreSQL store lives, from `--database postgres://user:password@host:port/database`
/// (`postgresql://` too). `?sslmode=` is libpq's: `disable`, `prefer` (the default: TLS when the
/// server offers it, its certificate not checked, as libpq does), `require` (TLS, not checked) or
/// `verify-full` (TLS with a certificate the system trusts, for this host).
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// Why a `postgres://` address cannot be used.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    public let host: String
    public let port: Int
    public let user: String
    let password: String?
    public let database: String
    public let sslMode: String

    /// Whether `text` names a PostgreSQL store rather than an SQLite file.
    public static func names(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Parses an address; throws `Problem` naming what is wrong with it (never echoing a password).
    public init(_ text: String) throws {
        guard Self.names(text), let url = URLComponents(string: text) else {
            throw Problem(description: "expected postgres://user:password@host:port/database")
        }
        guard let user = url.user, !user.isEmpty else {
            throw Problem(description: "the PostgreSQL address names no user (postgres://USER@host/database)")
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw Problem(description: "the PostgreSQL address names no database (postgres://user@host/DATABASE)")
        }
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else { throw Problem(description: "the PostgreSQL port must be 1 to 65535") }
        var sslMode = "prefer"
        for item in url.queryItems ?? [] {
            guard item.name == "sslmode", let value = item.value else {
                throw Problem(description: "unknown PostgreSQL address parameter '\(item.name)' (only sslmode is read)")
            }
            guard ["disable", "prefer", "require", "verify-full"].contains(value) else {
                throw Problem(description: "sslmode must be disable, prefer, require or verify-full")
            }
            sslMode = value
        }
        host = url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        self.port = port
        self.user = user
        password = url.password
        self.database = database
        self.sslMode = sslMode
    }

    /// The address without its password, for logs and errors.
    public var description: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?sslmode=\(sslMode)"
    }

    /// The client configuration: a small pool (the writer, the dispatcher and the readers), a
    /// short connect timeout, and `application_name` so an operator sees who is connected.
    public func configuration() -> PostgresClient.Configuration {
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(unchecked)
        case "verify-full": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(unchecked)
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.minimumConnections = 1
        configuration.options.maximumConnections = 8
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = [("application_name", "callgate")]
        return configuration
    }
}

extension PostgresLocation {
    /// Runs `body` with a running client of this server, then shuts the client down: for a
    /// command that connects once (`migrate-sqlite`'s copy).
    func withClient<T>(logger: Logger, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: configuration(), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
