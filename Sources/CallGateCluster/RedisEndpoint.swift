import Foundation

/// Where a Redis server is and how to log in: `redis://[[user]:password@]host[:port][/db]`.
///
/// hiredis 0.14 (Debian 12's) speaks neither TLS nor RESP3, so `rediss://` is refused here rather
/// than sent in the clear; put a TLS tunnel (stunnel, a sidecar) in front of a remote Redis.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// Why a URL does not name a Redis server we can use.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Host name or IP address (IPv6 without brackets).
    public var host: String
    public var port: Int
    /// The ACL user to log in as (`AUTH user password`); nil for the default user.
    public var user: String?
    /// The password (`AUTH password`); nil when the server asks for none.
    public var password: String?
    /// The logical database (`SELECT`); 0 by default.
    public var database: Int

    /// Parses `url`; throws `Invalid` naming what is wrong with it.
    public init(parsing url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw Invalid(description: "not a URL: expected redis://host:port")
        }
        guard scheme == "redis" else {
            let hint = scheme == "rediss" ? " (hiredis 0.14 has no TLS: tunnel it)" : ""
            throw Invalid(description: "unsupported scheme \(scheme)://\(hint): expected redis://host:port")
        }
        guard var host = components.host, !host.isEmpty else {
            throw Invalid(description: "the URL names no host: expected redis://host:port")
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        let port = components.port ?? 6379
        guard (1...65535).contains(port) else {
            throw Invalid(description: "port \(port) is out of range 1-65535")
        }
        let path = components.path.drop { $0 == "/" }
        var database = 0
        if !path.isEmpty {
            guard let number = Int(path), (0...Int(Int32.max)).contains(number) else {
                throw Invalid(description: "database \"\(path)\" is not a number: expected redis://host:port/0")
            }
            database = number
        }
        guard components.query == nil else {
            throw Invalid(description: "the URL has query parameters; none are understood")
        }
        self.host = host
        self.port = port
        self.database = database
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        self.user = user
        password = components.password
        if user != nil, password == nil {
            throw Invalid(description: "a user needs a password: redis://user:password@host:port")
        }
    }

    /// What a connection sends first to log in: `AUTH [user] password` when there is a
    /// password, `SELECT database` when it is not 0.
    var loginCommands: [[String]] {
        var commands: [[String]] = []
        if let password {
            commands.append(["AUTH"] + (user.map { [$0] } ?? []) + [password])
        }
        if database != 0 {
            commands.append(["SELECT", String(database)])
        }
        return commands
    }

    /// The URL without its password, for logs and `/health`.
    public var description: String {
        let login = password == nil ? "" : "\(user ?? ""):***@"
        let address = host.contains(":") ? "[\(host)]" : host
        return "redis://\(login)\(address):\(port)/\(database)"
    }
}
