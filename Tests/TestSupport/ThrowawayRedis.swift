import Foundation

/// A Redis server of the tests' own: `redis-server` on a free loopback port with its files in a
/// temporary directory. Never the system's service.
///
/// `persistent` servers keep an append-only file (fsync on every write), so a `shutDown()` then
/// `start()` comes back with the data; others come back empty, as a Redis without persistence
/// does after a crash.
public final class ThrowawayRedis: @unchecked Sendable {
    /// Why the server could not be started, with its log's tail.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The directory holding the log and the append-only file; removed by `stop()`.
    public let directory: URL
    /// The loopback port it listens on; the same after a `start()` that follows a shutdown.
    public let port: Int
    /// Whether a restart keeps the data.
    public let persistent: Bool
    /// Its password (`requirepass`); nil for none.
    public let password: String?
    /// Whether it loads an ACL file (`users`); `command` then logs in as `admin`.
    private let hasACL: Bool
    private var process: Process?

    /// Starts a server; throws `Failure` when redis-server is not installed (`make deps` installs
    /// it) or does not answer within 10 s. `users`: the lines of an ACL file to load (with
    /// `users.acl`), to which a user `admin` with every right and `password` is added for
    /// `command`.
    public init(persistent: Bool = false, password: String? = nil, users: [String]? = nil) throws {
        self.persistent = persistent
        self.password = password
        hasACL = users != nil
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("callgate-redis-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let users {
            let admin = "user admin on >\(password ?? "admin") ~* &* +@all"
            try (users + [admin]).joined(separator: "\n").appending("\n")
                .write(to: directory.appendingPathComponent("users.acl"), atomically: true, encoding: .utf8)
        }
        port = try FreePort.pick()
        do {
            try start()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        if let process, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
    }

    /// `redis://[:password@]127.0.0.1:<port>`.
    public var url: String { "redis://\(password.map { ":\($0)@" } ?? "")127.0.0.1:\(port)" }

    /// `redis://user:password@127.0.0.1:<port>`: the URL of one of its ACL's users.
    public func url(user: String, password: String) -> String {
        "redis://\(user):\(password)@127.0.0.1:\(port)"
    }

    /// The running server's process id; 0 when it is not running.
    public var pid: Int32 {
        guard let process, process.isRunning else { return 0 }
        return process.processIdentifier
    }

    /// Starts the server on `port` and waits until it answers PING.
    public func start() throws {
        let executable = "/usr/bin/redis-server"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "\(executable) is missing: run `make deps`")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--dir", directory.path, "--save", "",
            "--appendonly", persistent ? "yes" : "no", "--appendfsync", "always", "--daemonize", "no",
            "--logfile", logPath, "--protected-mode", "no",
        ] + (hasACL ? ["--aclfile", directory.appendingPathComponent("users.acl").path]
            : password.map { ["--requirepass", $0] } ?? [])
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = child
        let deadline = Date.now.addingTimeInterval(10)
        while Date.now < deadline {
            if !child.isRunning {
                throw Failure(description: "redis-server exited with \(child.terminationStatus):\n\(logTail())")
            }
            if answersPing() {
                return
            }
            usleep(50_000)
        }
        throw Failure(description: "redis-server did not answer within 10 s:\n\(logTail())")
    }

    /// Stops the server with `SHUTDOWN` (a persistent one flushes its append-only file) and
    /// waits. Not with SIGTERM: a child of the test process may start with that signal blocked,
    /// and Redis, unlike PostgreSQL, does not unblock it.
    public func shutDown() {
        guard pid != 0 else { return }
        _ = try? command("SHUTDOWN", persistent ? "SAVE" : "NOSAVE")
        signalAndWait(nil)
    }

    /// Kills the server (SIGKILL), as a crash would.
    public func kill() {
        signalAndWait(SIGKILL)
    }

    /// Stops the server and removes its directory.
    public func stop() {
        shutDown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs one command through `redis-cli` (within 10 s) and returns its output, trimmed;
    /// throws when redis-cli fails.
    @discardableResult
    public func command(_ arguments: String...) throws -> String {
        let run = try CommandRun.runBlocking(
            ["redis-cli", "-h", "127.0.0.1", "-p", "\(port)", "--no-auth-warning"]
                + (hasACL ? ["--user", "admin", "--pass", password ?? "admin"] : password.map { ["-a", $0] } ?? [])
                + arguments,
            timeoutSeconds: 10)
        guard run.exitCode == 0 else { throw Failure(description: "redis-cli \(arguments): \(run)") }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's log so far (its last 4 KB).
    public func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(4096))
    }

    private var logPath: String { directory.appendingPathComponent("redis.log").path }

    private func answersPing() -> Bool {
        (try? command("PING")) == "PONG"
    }

    /// Sends `signal` (none: waits for an exit already asked for), waits up to 10 s, then kills.
    private func signalAndWait(_ signal: Int32?) {
        guard let process, process.isRunning else { return }
        if let signal {
            Foundation.kill(process.processIdentifier, signal)
        }
        let deadline = Date.now.addingTimeInterval(10)
        while process.isRunning, Date.now < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
