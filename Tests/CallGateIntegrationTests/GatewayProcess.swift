import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation

/// The real `callgate serve` executable in a child process, for tests that must kill it.
///
/// It is found next to the test bundle (`swift build --build-tests` builds it there).
final class GatewayProcess {
    /// Raised when the executable is missing or does not start listening.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `callgate` executable next to the test bundle.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("callgate")

    let process = Process()
    /// The port it listens on.
    private(set) var port = 0
    /// What it logs (standard error); a later `--log-level` in `arguments` overrides `warning`.
    let log = ProcessLog()
    private let output = Pipe()

    /// Starts `callgate serve` on a free port with `arguments` added, and waits until it listens.
    /// `environment` is added to this process's environment. SIGTERM stops it without a drain
    /// unless `arguments` give `--drain-seconds` (a later flag overrides an earlier one).
    init(arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.executable
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw StartFailure(description: "\(executable.path) is missing: run `swift build --build-tests` first")
        }
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--log-level", "warning", "--drain-seconds", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = log.pipe
        try process.run()
        port = try readPort()
    }

    /// Reads stdout until the welcome line names the port.
    private func readPort() throws -> Int {
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"listening on wss?://[^:]+:(\d+)/"#, options: .regularExpression) {
                let match = text[range]
                let digits = match.split(separator: ":").last?.prefix { $0.isNumber } ?? ""
                if let port = Int(digits) { return port }
            }
        }
        kill()
        throw StartFailure(description: "callgate serve did not start listening; it printed: \(text)")
    }

    /// SIGKILL: no shutdown code runs, exactly like a crash.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends `signal` (SIGTERM, SIGINT, ...) and returns at once.
    func send(_ signal: Int32) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
    }

    /// SIGSTOP, then waits until every thread of the process is stopped: the kernel stops the
    /// group only once the thread it chose runs, and on a loaded machine the others go on
    /// answering for milliseconds meanwhile. Throws when that takes more than 5 s.
    func freeze() async throws {
        send(SIGSTOP)
        let deadline = ContinuousClock.now + .seconds(5)
        while !allThreadsStopped() {
            guard ContinuousClock.now < deadline else {
                throw StartFailure(description: "callgate did not stop within 5 s of SIGSTOP")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// SIGCONT: a frozen process runs again.
    func thaw() {
        send(SIGCONT)
    }

    /// Whether every thread's state in /proc is `T` (stopped by a signal).
    private func allThreadsStopped() -> Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty else {
            return false
        }
        return threads.allSatisfy { thread in
            // The state follows the command name's closing parenthesis: "pid (comm) T ...".
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
        }
    }

    /// The exit status once the process ended, or nil if it still runs after `timeout`.
    func exitStatus(within timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    func terminate() -> Int32 {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    deinit {
        kill()
    }
}

extension GatewayProcess {
    /// A device of `uid` (named `uid`) connected to this gateway on `loop` with a token from
    /// `tokens`, and what `connect` answered.
    func connect(_ uid: String, tokens: TokenService, loop: ClientLoop) async throws -> (CallGateClient, ConnectResult) {
        let client = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: loop)
        let result = try await client.connect(token: try await tokens.mint(user: User(uid: uid, name: uid), ttl: 600).token)
        return (client, result)
    }
}
