import Foundation
import Synchronization
import TestSupport

/// One run of the real `callgate` executable to its end, standard output and error apart, with
/// an environment of its own: this process's without its `CALLGATE_*` variables, plus the given.
struct CallgateRun: CustomStringConvertible {
    let exitCode: Int32
    let standardOutput: String
    let standardError: String

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CallgateRun {
        try await offPool {
            let process = Process()
            process.executableURL = GatewayProcess.executable
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CALLGATE_") }
                .merging(environment) { $1 }
            process.standardInput = FileHandle.nullDevice
            let output = Pipe(), error = Pipe()
            process.standardOutput = output
            process.standardError = error
            try process.run()
            let errorData = ErrorOutput()
            let errorRead = DispatchGroup()
            DispatchQueue.global().async(group: errorRead) {
                errorData.bytes.withLock { $0 = error.fileHandleForReading.readDataToEndOfFile() }
            }
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            errorRead.wait()
            process.waitUntilExit()
            let errorText = errorData.bytes.withLock { $0 }
            return CallgateRun(
                exitCode: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                standardError: String(decoding: errorText, as: UTF8.self))
        }
    }

    /// Standard error, read on a thread of its own while standard output is read.
    private final class ErrorOutput: Sendable {
        let bytes = Mutex(Data())
    }

    /// The lines of standard error.
    var errorLines: [Substring] {
        standardError.split(separator: "\n")
    }

    var description: String {
        "exit \(exitCode), stdout: \(standardOutput), stderr: \(standardError)"
    }
}
