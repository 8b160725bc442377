import Foundation

/// A PostgreSQL server of the tests' own: `initdb` into a temporary directory, `postgres` on a
/// free loopback port, as an unprivileged user when the tests run as root (PostgreSQL refuses to
/// run as root), trust authentication for the `callgate` role. Never the system's service.
///
/// The postmaster is started through `setpriv`, which executes it in place, so `pid` is the
/// postmaster's own: `shutDown()`, `shutDownImmediately()` and `stop()` signal it directly. `fsync` is off (only
/// an operating system crash could lose a commit, and none happens in a test); commits stay
/// synchronous, so an acknowledged commit survives `shutDownImmediately()`.
public final class ThrowawayPostgres: @unchecked Sendable {
    /// Why the server could not be started or stopped, with its log's tail.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The role every test connects as (a superuser of this server only).
    public static let role = "callgate"

    /// The directory holding the data directory, the socket and the log; removed by `stop()`.
    public let directory: URL
    /// The loopback port it listens on; the same after a `start()` that follows a shutdown.
    public let port: Int
    /// The postmaster's process id (changes at each start).
    public private(set) var pid: Int32 = 0
    private var process: Process?
    private let binaries: URL
    private let user: String?

    /// Initializes a data directory and starts the server; throws `Failure` when PostgreSQL is not
    /// installed (`make deps` installs it) or does not come up within 20 s.
    public init() throws {
        binaries = try Self.binaries()
        user = getuid() == 0 ? Self.unprivilegedUser() : nil
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("callgate-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try FreePort.pick()
        do {
            if let user {
                try Self.run("/usr/bin/chown", [user, directory.path])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            try runAsServerUser(
                binaries.appendingPathComponent("initdb").path,
                ["-D", dataDirectory, "-U", Self.role, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
                 "--no-instructions"])
            try start()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// `postgres://callgate@127.0.0.1:<port>/<database>`.
    public func url(database: String = "postgres") -> String {
        "postgres://\(Self.role)@127.0.0.1:\(port)/\(database)"
    }

    /// Creates an empty database and returns its URL.
    public func createDatabase(_ name: String) throws -> String {
        try Self.run(binaries.appendingPathComponent("createdb").path, ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.role, name])
        return url(database: name)
    }

    /// Starts the postmaster on `port` and waits until it accepts connections.
    public func start() throws {
        let postgres = binaries.appendingPathComponent("postgres").path
        let arguments = [
            "-D", dataDirectory, "-p", "\(port)", "-k", directory.path, "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=100",
        ]
        let child = Process()
        if let user {
            child.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            child.arguments = ["--reuid=\(user)", "--regid=\(Self.group(of: user))", "--clear-groups", postgres] + arguments
        } else {
            child.executableURL = URL(fileURLWithPath: postgres)
            child.arguments = arguments
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        child.standardOutput = log
        child.standardError = log
        try child.run()
        process = child
        pid = child.processIdentifier
        let deadline = Date.now.addingTimeInterval(20)
        while Date.now < deadline {
            if !child.isRunning {
                throw Failure(description: "postgres exited with \(child.terminationStatus):\n\(logTail())")
            }
            if (try? Self.run(binaries.appendingPathComponent("pg_isready").path,
                              ["-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil {
                return
            }
            usleep(100_000)
        }
        throw Failure(description: "postgres did not accept connections within 20 s:\n\(logTail())")
    }

    /// Stops the server the fast way (open transactions roll back, clients get 57P01) and waits.
    public func shutDown() {
        signalAndWait(SIGINT)
    }

    /// Stops the server the immediate way (SIGQUIT: no checkpoint, every backend killed), as a
    /// crash would; the next `start()` runs crash recovery.
    public func shutDownImmediately() {
        signalAndWait(SIGQUIT)
    }

    /// Stops the server (fast) and removes its directory.
    public func stop() {
        shutDown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The server's log so far (its last 4 KB).
    public func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(4096))
    }

    private var dataDirectory: String { directory.appendingPathComponent("data").path }
    private var logPath: String { directory.appendingPathComponent("server.log").path }

    private func signalAndWait(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let deadline = Date.now.addingTimeInterval(15)
        while process.isRunning, Date.now < deadline {
            usleep(20_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func runAsServerUser(_ executable: String, _ arguments: [String]) throws {
        if let user {
            try Self.run("/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(Self.group(of: user))", "--clear-groups", executable] + arguments)
        } else {
            try Self.run(executable, arguments)
        }
    }

    /// The newest installed PostgreSQL's binaries (Debian keeps each major version apart).
    private static func binaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap(Int.init).sorted()
        guard let newest = versions.last else {
            throw Failure(description: "PostgreSQL is not installed (no /usr/lib/postgresql/<version>): run make deps")
        }
        return root.appendingPathComponent("\(newest)/bin")
    }

    /// The user the server runs as under root: `$CALLGATE_PG_TEST_USER`, else `nobody`.
    private static func unprivilegedUser() -> String {
        ProcessInfo.processInfo.environment["CALLGATE_PG_TEST_USER"] ?? "nobody"
    }

    /// The primary group of `user`, by id.
    private static func group(of user: String) -> String {
        guard let entry = getpwnam(user) else { return "nogroup" }
        return "\(entry.pointee.pw_gid)"
    }

    /// Runs a command to its end; throws `Failure` with its output when it fails.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let done = try CommandRun.runBlocking([executable] + arguments)
        guard done.exitCode == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) \(done)")
        }
        return done.output
    }
}
