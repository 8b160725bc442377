import Foundation
import TestSupport

/// A self-signed certificate for localhost, 127.0.0.1 and ::1, made by `tools/make-cert.sh` in
/// a temporary directory that goes away with this value.
final class TestCertificate {
    let directory: TemporaryDirectory
    /// The certificate, PEM; also the CA file a client trusts it through.
    var certificateFile: String { directory.path("cert.pem") }
    /// Its private key, PEM.
    var keyFile: String { directory.path("key.pem") }

    init() async throws {
        directory = try TemporaryDirectory()
        let script = ProtoChecker.repositoryRoot.appendingPathComponent("tools/make-cert.sh").path
        let run = try await CommandRun.run(["bash", script, directory.url.path])
        guard run.exitCode == 0, FileManager.default.fileExists(atPath: directory.path("key.pem")) else {
            throw GatewayProcess.StartFailure(description: "tools/make-cert.sh failed: \(run)")
        }
    }
}
