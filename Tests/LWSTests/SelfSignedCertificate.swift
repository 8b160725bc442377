import Foundation

/// A certificate for localhost and 127.0.0.1 made by tools/make-cert.sh in a fresh temporary
/// directory, removed with this value.
final class SelfSignedCertificate {
    let directory: URL
    var certificateFile: String { directory.appendingPathComponent("cert.pem").path }
    var keyFile: String { directory.appendingPathComponent("key.pem").path }

    /// Makes the certificate; the script runs on a Dispatch thread, so the wait holds none of
    /// Swift concurrency's cooperative threads (other tests' servers need them).
    init() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lws-tls-\(UUID().uuidString)")
        self.directory = directory
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/make-cert.sh")
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/bash")
                process.arguments = [script.path, directory.path]
                process.standardOutput = FileHandle.nullDevice
                continuation.resume(with: Result {
                    try process.run()
                    process.waitUntilExit()
                    return process.terminationStatus
                })
            }
        }
        guard status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "tools/make-cert.sh failed"])
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
