import Foundation

/// A certificate for localhost and 127.0.0.1 made by tools/make-cert.sh in a fresh temporary
/// directory, removed with this value.
final class SelfSignedCertificate {
    let directory: URL
    var certificateFile: String { directory.appendingPathComponent("cert.pem").path }
    var keyFile: String { directory.appendingPathComponent("key.pem").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lws-tls-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/make-cert.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, directory.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "tools/make-cert.sh failed"])
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
