import Foundation
import TestSupport

/// A real nginx (Debian's) in the foreground, serving deploy/nginx/callgate.conf rendered for
/// free loopback ports, a test certificate and a temporary prefix, in front of a gateway.
///
/// The committed file is used as it is but for the values a test machine must change: each of
/// them must appear in it (see `replacements`), so an edit there fails this test loudly instead
/// of testing something else. Call `stop()` at the end; deinit stops it too.
final class NginxProxy {
    /// The rendered configuration and everything nginx writes: logs, pid, temp files.
    let directory: TemporaryDirectory
    /// The TLS port (443 in production).
    let httpsPort: Int
    /// The plain HTTP port that redirects (80 in production).
    let httpPort: Int
    private let process = Process()
    private let output = ProcessLog()

    /// The committed configuration.
    static let committedConfiguration = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/nginx/callgate.conf")
    /// The committed upstream block of a cluster.
    static let committedClusterUpstream = ProtoChecker.repositoryRoot.appendingPathComponent("deploy/nginx/callgate-cluster.conf")
    /// callgate.conf's one-gateway upstream, which a cluster replaces.
    static let singleUpstream = "upstream callgate {\n    server 127.0.0.1:8080;\n    keepalive 16;\n}"

    /// Renders the configuration for `upstreamPort` and `certificate`, with `perIPLimit` open
    /// connections per client address, checks it with `nginx -t` and starts nginx. Installs
    /// nginx first (tools/install-nginx.sh) when it is missing.
    convenience init(upstreamPort: Int, certificate: TestCertificate, perIPLimit: Int) async throws {
        try await self.init(upstream: "server 127.0.0.1:8080;", as: "server 127.0.0.1:\(upstreamPort);", certificate: certificate, perIPLimit: perIPLimit)
    }

    /// The same with callgate-cluster.conf's upstream block in place of the one-gateway one, its
    /// three nodes at `nodePorts`.
    convenience init(nodePorts: [Int], certificate: TestCertificate, perIPLimit: Int) async throws {
        let cluster = try String(contentsOf: Self.committedClusterUpstream, encoding: .utf8)
        // The block starts a line (its comment above names it too) and ends at the first line "}".
        guard let start = cluster.range(of: "\nupstream callgate {"),
              let end = cluster.range(of: "\n}", range: start.upperBound..<cluster.endIndex), nodePorts.count == 3 else {
            throw GatewayProcess.StartFailure(description: "callgate-cluster.conf has no upstream callgate block of three nodes")
        }
        let block = try Self.render(String(cluster[cluster.index(after: start.lowerBound)..<end.upperBound]), replacements: [
            ("127.0.0.1:8081", "127.0.0.1:\(nodePorts[0])"), ("127.0.0.1:8082", "127.0.0.1:\(nodePorts[1])"),
            ("127.0.0.1:8083", "127.0.0.1:\(nodePorts[2])"),
        ])
        try await self.init(upstream: Self.singleUpstream, as: block, certificate: certificate, perIPLimit: perIPLimit)
    }

    private init(upstream: String, as rendered: String, certificate: TestCertificate, perIPLimit: Int) async throws {
        let binary = try await Self.binary()
        directory = try TemporaryDirectory()
        let httpsPort = try FreePort.pick()
        var httpPort = try FreePort.pick()
        while httpPort == httpsPort {
            httpPort = try FreePort.pick()
        }
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        let prefix = directory.url.path
        let committed = try String(contentsOf: Self.committedConfiguration, encoding: .utf8)
        let rendered = try Self.render(committed, replacements: [
            ("listen 443 ssl;", "listen 127.0.0.1:\(httpsPort) ssl;"),
            ("listen [::]:443 ssl;", ""),
            ("listen 80;", "listen 127.0.0.1:\(httpPort);"),
            ("listen [::]:80;", ""),
            (upstream, rendered),
            ("/etc/letsencrypt/live/callgate.example.com/fullchain.pem", certificate.certificateFile),
            ("/etc/letsencrypt/live/callgate.example.com/privkey.pem", certificate.keyFile),
            ("/var/log/nginx/callgate.access.log", "\(prefix)/callgate.access.log"),
            ("/var/log/nginx/callgate.error.log", "\(prefix)/callgate.error.log"),
            ("limit_conn callgate_per_ip 100;", "limit_conn callgate_per_ip \(perIPLimit);"),
        ])
        try rendered.write(toFile: directory.path("callgate.conf"), atomically: true, encoding: .utf8)
        try """
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log info;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                access_log \(prefix)/other.access.log;
                include \(prefix)/callgate.conf;
            }
            """.write(toFile: directory.path("nginx.conf"), atomically: true, encoding: .utf8)
        let arguments = ["-p", prefix, "-c", directory.path("nginx.conf"), "-e", directory.path("error.log")]
        let check = try await CommandRun.run([binary, "-t"] + arguments)
        guard check.exitCode == 0 else {
            throw GatewayProcess.StartFailure(description: "nginx -t refused the rendered configuration: \(check)")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + ["-g", "daemon off;"]
        process.standardOutput = output.pipe
        process.standardError = output.pipe
        try process.run()
        try await waitUntilListening()
    }

    /// What nginx wrote to the gateway's access log.
    var accessLog: String {
        (try? String(contentsOfFile: directory.path("callgate.access.log"), encoding: .utf8)) ?? ""
    }

    /// The first access log line that contains every one of `parts`, waiting up to `timeout`:
    /// nginx writes a request's line after its response, and a WebSocket's when it closes.
    func accessLogLine(containing parts: [String], timeout: Duration = .seconds(10)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let match = accessLog.split(separator: "\n").first { line in parts.allSatisfy { line.contains($0) } }
            if let match { return String(match) }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops nginx (SIGQUIT: workers finish, then the master exits) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        process.waitUntilExit()
    }

    deinit {
        stop()
    }

    /// `committed` with each `(original, replacement)` applied; throws when an original is missing.
    static func render(_ committed: String, replacements: [(String, String)]) throws -> String {
        var text = committed
        for (original, replacement) in replacements {
            guard text.contains(original) else {
                throw GatewayProcess.StartFailure(
                    description: "deploy/nginx/callgate.conf no longer contains '\(original)': update NginxProxy")
            }
            text = text.replacingOccurrences(of: original, with: replacement)
        }
        return text
    }

    /// nginx's path, installing it with tools/install-nginx.sh when it is missing.
    private static func binary() async throws -> String {
        if let found = CommandRun.locate("nginx") { return found }
        let script = ProtoChecker.repositoryRoot.appendingPathComponent("tools/install-nginx.sh").path
        let install = try await CommandRun.run(["bash", script], timeoutSeconds: 600)
        guard install.exitCode == 0, let found = CommandRun.locate("nginx") else {
            throw GatewayProcess.StartFailure(description: "nginx is missing and tools/install-nginx.sh failed: \(install)")
        }
        return found
    }

    /// Waits (30 s at most) until the TLS port accepts connections; throws if nginx exits first.
    private func waitUntilListening() async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else {
                throw GatewayProcess.StartFailure(description: "nginx exited: \(output.text)")
            }
            if Self.accepts(port: httpsPort) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        throw GatewayProcess.StartFailure(description: "nginx did not listen on \(httpsPort) within 30 s: \(output.text)")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds.
    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
