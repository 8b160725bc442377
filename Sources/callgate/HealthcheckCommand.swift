import ArgumentParser
import AsyncHTTPClient
import NIOCore
import NIOSSL

/// `callgate healthcheck`: asks a gateway's `/healthz`, for the container image's HEALTHCHECK
/// (the image has no curl). Exits 0 on 200, 1 on anything else.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the gateway answers GET /healthz with 200, else 1.",
        discussion: """
            Without --url it asks the gateway that the same environment configures (its CALLGATE_* \
            variables and the config file CALLGATE_CONFIG names): http, or https when tls-cert is \
            set, on its host (127.0.0.1 for a wildcard address) and port. An https certificate is not \
            verified: the probe asks a gateway on its own host whether it is up and sends nothing secret.
            """
    )

    @Option(help: "The URL to ask (default: /healthz of the gateway the CALLGATE_* variables and CALLGATE_CONFIG configure).")
    var url: String?

    @Option(help: "Seconds to wait for the answer (default 3).")
    var timeout: Int64 = 3

    func run() async throws {
        let target: String
        if let url {
            target = url
        } else {
            do {
                target = try Self.defaultURL(ServeSettings.fromEnvironment())
            } catch {
                throw CommandFailure(error.description)
            }
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        let status: Result<UInt, Error>
        do {
            let response = try await client.execute(HTTPClientRequest(url: target), timeout: .seconds(timeout))
            status = .success(response.status.code)
        } catch {
            status = .failure(error)
        }
        try? await client.shutdown()
        switch status {
        case .success(200): return
        case .success(let code): throw CommandFailure("\(target) answered \(code)")
        case .failure(let error): throw CommandFailure("\(target): \(error)")
        }
    }

    /// `/healthz` of the gateway `settings` configure, reached on its own host.
    static func defaultURL(_ settings: ServeSettings) -> String {
        let scheme = settings.text(.tlsCert) == nil ? "http" : "https"
        var host = settings.text(.host) ?? "127.0.0.1"
        if ["0.0.0.0", "::", "[::]"].contains(host) {
            host = "127.0.0.1"
        } else if host.contains(":") && !host.hasPrefix("[") {
            host = "[\(host)]"
        }
        let port = settings.integer(.port) ?? 8080
        return "\(scheme)://\(host):\(port)/healthz"
    }
}
