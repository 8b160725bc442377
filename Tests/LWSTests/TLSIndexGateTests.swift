import Foundation
import LWS
import Testing

/// lws 4.1 re-takes its OpenSSL ex-data indexes whenever a context initialises TLS; without
/// `TLSIndexGate`, about one handshake in thirteen failed here while other TLS contexts were
/// being created. With it, every handshake must succeed.
@Suite("TLS handshakes while other TLS contexts start")
struct TLSIndexGateTests {
    @Test func everyHandshakeSucceedsWhileClientContextsAreCreatedAndStopped() async throws {
        let certificate = try await SelfSignedCertificate()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.tls = ServerTLS(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        let server = LWSContext(configuration: configuration)
        let handler = EchoHandler()
        try server.start(webSocketDelegate: handler, httpHandler: handler)
        defer { server.stop() }
        let port = server.port
        let rounds = 100
        let churn = Task.detached {
            for _ in 0..<rounds {
                var client = ContextConfiguration(listen: nil, protocolName: "test.v1")
                client.clientTLS = ClientTLSTrust()
                let context = LWSContext(configuration: client)
                try context.start(webSocketDelegate: ClientProbe())
                context.stop()
            }
        }
        var failed = 0
        for _ in 0..<rounds {
            let target = ClientTarget(host: "127.0.0.1", port: port, tls: .verified)
            let client = try LoopbackClient(target, trust: ClientTLSTrust(caFile: certificate.certificateFile))
            if await client.next() != .opened {
                failed += 1
            }
            client.stop()
        }
        try await churn.value
        #expect(failed == 0, "\(failed) of \(rounds) handshakes failed")
    }
}
