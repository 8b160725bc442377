import LWS
import Synchronization
import Testing

/// A server delegate that accepts only upgrades from one Origin (or without one) and echoes.
final class OriginGate: WebSocketDelegate, UpgradeFilter, @unchecked Sendable {
    let allowed: String
    let seen = Mutex<[UpgradeRequest]>([])

    init(allowed: String) {
        self.allowed = allowed
    }

    func shouldUpgrade(_ request: UpgradeRequest) -> UpgradeDecision {
        seen.withLock { $0.append(request) }
        if let origin = request.origin, origin != allowed {
            return .refuse(status: 403, contentType: "text/plain", body: Array("origin refused".utf8))
        }
        return .accept
    }

    func webSocketDidOpen(_ connection: WebSocketConnection) {}

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        connection.send(OutboundFrame(message))
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {}
}

/// The lws client sends `Origin: http://<ClientTarget.origin>`.
@Suite("Upgrade filter on the server")
struct UpgradeFilterTests {
    private func start(_ gate: OriginGate) throws -> LWSContext {
        let configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        let server = LWSContext(configuration: configuration)
        try server.start(webSocketDelegate: gate)
        return server
    }

    @Test func aRefusedUpgradeNeverOpens() async throws {
        let gate = OriginGate(allowed: "http://good.example")
        let server = try start(gate)
        defer { server.stop() }
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port, origin: "evil.example"))
        defer { client.stop() }
        guard case .closed(_, let error) = await client.next() else {
            Issue.record("the upgrade should have been refused")
            return
        }
        #expect(error != nil)
        #expect(gate.seen.withLock { $0.map(\.origin) } == ["http://evil.example"])
    }

    @Test func anAcceptedUpgradeOpensAndCarriesTheClientAddress() async throws {
        let gate = OriginGate(allowed: "http://good.example")
        let server = try start(gate)
        defer { server.stop() }
        for origin in ["good.example", nil] {
            let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port, origin: origin))
            defer { client.stop() }
            #expect(await client.next() == .opened)
            client.send("hi")
            #expect(await client.next() == .message("hi"))
        }
        let requests = gate.seen.withLock { $0 }
        #expect(requests.map(\.origin) == ["http://good.example", nil])
        #expect(requests.allSatisfy { $0.clientAddress == "127.0.0.1" && $0.path == "/ws" })
    }
}
