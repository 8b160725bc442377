import Foundation

/// One run of an external command (openssl, curl, nginx, systemd-analyze, initdb) to its end: its exit
/// status and everything it printed, standard output and error together.
public struct CommandRun: CustomStringConvertible, Sendable {
    public let exitCode: Int32
    public let output: String

    /// Runs `arguments` (the first is looked up in PATH) with standard input empty, `environment`
    /// added to this process's, and waits for it. `coreutils timeout` ends it after
    /// `timeoutSeconds`, so a hung tool fails the test instead of hanging it.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeoutSeconds: Int = 60
    ) async throws -> CommandRun {
        try await offPool { try runBlocking(arguments, environment: environment, timeoutSeconds: timeoutSeconds) }
    }

    /// `run` on the calling thread, for code that may block (a Dispatch thread).
    public static func runBlocking(
        _ arguments: [String], environment: [String: String] = [:], timeoutSeconds: Int = 60
    ) throws -> CommandRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", String(timeoutSeconds)] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandRun(exitCode: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }

    /// The path of the command `name` in PATH, or in /usr/sbin and /sbin (where Debian puts
    /// nginx, even when PATH lacks them); nil when there is none.
    public static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public var description: String { "exit \(exitCode): \(output)" }
}
