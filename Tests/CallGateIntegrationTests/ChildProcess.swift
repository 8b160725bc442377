import Foundation
import Synchronization

/// A built executable of this package (`callgate`, `callgate-bench`) run as a child process, with
/// its standard output and error collected. For tests of the real command lines.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let state = State()

    /// What the child's handlers write, from Foundation's threads.
    private final class State: Sendable {
        let output = Mutex((out: "", err: ""))
        let exitStatus = Mutex<Int32?>(nil)
    }

    /// Where `swift build` put the executable `name`: next to the test bundle.
    static func executable(_ name: String) throws -> URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [products, products.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw MissingExecutable(name: name, searched: products.path)
        }
        return found
    }

    struct MissingExecutable: Error, CustomStringConvertible {
        let name: String
        let searched: String
        var description: String { "\(name) is not built next to the tests (\(searched)); run swift build first" }
    }

    /// Starts `name` with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        process.executableURL = try Self.executable(name)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [state] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            state.output.withLock { $0.out += text }
        }
        err.fileHandleForReading.readabilityHandler = { [state] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            state.output.withLock { $0.err += text }
        }
        process.terminationHandler = { [state] process in
            state.exitStatus.withLock { $0 = process.terminationStatus }
        }
        try process.run()
    }

    var standardOutput: String { state.output.withLock { $0.out } }
    var standardError: String { state.output.withLock { $0.err } }

    /// Waits, at most about 30 s, until standard output contains `text`.
    func waitForOutput(_ text: String) async -> Bool {
        for _ in 0..<1_500 {
            if standardOutput.contains(text) { return true }
            if state.exitStatus.withLock({ $0 }) != nil { return standardOutput.contains(text) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() {
        process.interrupt()
    }

    /// The exit status, waiting at most about 60 s; nil (and the child killed) if it did not exit.
    func exitStatus() async -> Int32? {
        for _ in 0..<3_000 {
            if let status = state.exitStatus.withLock({ $0 }) {
                try? await Task.sleep(for: .milliseconds(50))
                return status
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        return nil
    }
}
