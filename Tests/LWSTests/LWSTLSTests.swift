import Foundation
import LWS
import Testing

/// TLS in the LWS layer: a server context with a certificate, client contexts that trust it or not.
@Suite("LWSContext over TLS")
struct LWSTLSTests {
    private func startServer(_ certificate: SelfSignedCertificate) throws -> LWSContext {
        let handler = EchoHandler()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.tls = ServerTLS(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        let context = LWSContext(configuration: configuration)
        try context.start(webSocketDelegate: handler, httpHandler: handler)
        return context
    }

    @Test func aClientThatTrustsTheCertificateEchoesOverWSS() async throws {
        let certificate = try await SelfSignedCertificate()
        let server = try startServer(certificate)
        defer { server.stop() }
        let target = ClientTarget(host: "127.0.0.1", port: server.port, tls: .verified)
        let client = try LoopbackClient(target, trust: ClientTLSTrust(caFile: certificate.certificateFile))
        defer { client.stop() }
        #expect(await client.next() == .opened)
        client.send("over tls")
        #expect(await client.next() == .message("over tls"))
    }

    @Test func aClientThatDoesNotTrustItFailsTheHandshake() async throws {
        let certificate = try await SelfSignedCertificate()
        let server = try startServer(certificate)
        defer { server.stop() }
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port, tls: .verified), trust: ClientTLSTrust())
        defer { client.stop() }
        guard case .closed(_, let error?) = await client.next() else {
            Issue.record("the handshake did not fail")
            return
        }
        #expect(!error.isEmpty)
    }

    @Test func aPlainClientGetsNoWebSocketFromATLSPort() async throws {
        let certificate = try await SelfSignedCertificate()
        let server = try startServer(certificate)
        defer { server.stop() }
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port))
        defer { client.stop() }
        #expect(await client.next() != .opened)
    }

    @Test func aTLSTargetOnAContextWithoutClientTLSIsRefusedAtOnce() async throws {
        let context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "test.v1"))
        try context.start(webSocketDelegate: ClientProbe())
        defer { context.stop() }
        let target = ClientTarget(host: "127.0.0.1", port: 9, tls: .verified)
        let refusal = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            context.post {
                do {
                    _ = try context.connect(to: target)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: String(describing: error))
                }
            }
        }
        #expect(refusal?.contains("clientTLS") == true)
    }

    @Test func aMissingCertificateFailsTheStart() throws {
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.tls = ServerTLS(certificateFile: "/nonexistent/cert.pem", privateKeyFile: "/nonexistent/key.pem")
        let context = LWSContext(configuration: configuration)
        #expect(throws: LWSError.self) { try context.start(webSocketDelegate: EchoHandler()) }
    }
}
