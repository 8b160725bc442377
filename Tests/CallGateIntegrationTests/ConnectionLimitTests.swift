import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Origins and socket caps, decided before the upgrade answers; seen with a hand-made socket
/// that reads the HTTP status, and with the real client.
@Suite("Allowed origins and socket caps")
struct ConnectionLimitTests {
    @Test func anOriginNotAllowedGets403AndAllowedOnesAndNoneConnect() async throws {
        let gateway = try await TestGateway { $0.allowedOrigins = ["https://app.example.com"] }
        defer { gateway.shutdown() }
        let refused = try await RawWebSocket.open(port: gateway.port, origin: "https://evil.example.com")
        #expect(refused.status == 403)
        #expect(refused.body.contains(#""code":"ERR_ORIGIN_NOT_ALLOWED""#), "\(refused.body)")
        try await Self.expectContractBody(refused.body)

        let allowed = try await RawWebSocket.open(port: gateway.port, origin: "https://APP.example.com")
        #expect(allowed.status == 101)
        #expect(try await allowed.connect(token: try await gateway.token("alice")).contains(#""result""#))
        let withoutOrigin = try await RawWebSocket.open(port: gateway.port)
        #expect(withoutOrigin.status == 101)
        let device = try await gateway.device("bob")
        #expect(try await device.ping().serverTime > 0)
    }

    @Test func withoutAllowedOriginsAnyOriginConnects() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let socket = try await RawWebSocket.open(port: gateway.port, origin: "https://anything.example")
        #expect(socket.status == 101)
    }

    @Test func anAddressAtItsCapGets429UntilOneOfItsSocketsCloses() async throws {
        let gateway = try await TestGateway { $0.maxConnectionsPerAddress = 2 }
        defer { gateway.shutdown() }
        let first = try await gateway.device("alice")
        let second = try await gateway.socket()
        let third = try await RawWebSocket.open(port: gateway.port)
        #expect(third.status == 429)
        #expect(third.body.contains(#""code":"ERR_TOO_MANY_CONNECTIONS""#), "\(third.body)")
        try await Self.expectContractBody(third.body)

        let elsewhere = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: gateway.loop, sourceAddress: "127.0.0.2")
        #expect(try await elsewhere.connect(token: try await gateway.token("carol")).user.uid == "carol")

        await second.close()
        #expect(try await Self.upgradeStatus(port: gateway.port, until: 101) == 101)
        #expect(try await first.ping().serverTime > 0)
    }

    @Test func plainHTTPIdleAndHalfSentConnectionsCountAgainstTheAddressCap() async throws {
        let gateway = try await TestGateway { $0.maxConnectionsPerAddress = 3 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let halfSent = try await RawWebSocket.exchange(
            port: gateway.port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n", readsResponse: false)
        let idle = try await RawWebSocket.exchange(port: gateway.port, sending: "", readsResponse: false)
        let health = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let refused = try await RawWebSocket.exchange(port: gateway.port, sending: health)
        #expect(refused.status == 429)
        try await Self.expectContractBody(refused.body)
        #expect(try await RawWebSocket.open(port: gateway.port).status == 429, "upgrades are refused alike")
        #expect(try await RawWebSocket.exchange(port: gateway.port, sending: health, sourceAddress: "127.0.0.2").status == 200)

        halfSent.hangUp()
        var status = 0
        for _ in 0..<60 where status != 200 {
            try await Task.sleep(for: .milliseconds(50))
            status = try await RawWebSocket.exchange(port: gateway.port, sending: health).status
        }
        #expect(status == 200, "a closed connection gives its slot back")
        #expect(try await alice.ping().serverTime > 0)
        idle.hangUp()
    }

    @Test func aFullProcessGets503AndRecoversWhenASocketCloses() async throws {
        let gateway = try await TestGateway { $0.maxConnections = 2 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let refused = try await RawWebSocket.open(port: gateway.port)
        #expect(refused.status == 503)
        #expect(refused.body.contains(#""code":"ERR_SERVER_FULL""#), "\(refused.body)")
        try await Self.expectContractBody(refused.body)
        let fromElsewhere = try await RawWebSocket.open(port: gateway.port, sourceAddress: "127.0.0.3")
        #expect(fromElsewhere.status == 503)
        for _ in 0..<20 {
            #expect(try await RawWebSocket.open(port: gateway.port).status == 503)
        }
        #expect(try await alice.ping().serverTime > 0, "the gateway keeps serving while full")

        await bob.close()
        #expect(try await Self.upgradeStatus(port: gateway.port, until: 101) == 101)
    }

    /// Upgrades again until the status is `expected` (a close reaches the server a moment after
    /// the client saw it), for at most three seconds; returns the last status.
    static func upgradeStatus(port: Int, until expected: Int) async throws -> Int {
        var status = 0
        for _ in 0..<60 {
            status = try await RawWebSocket.open(port: port).status
            if status == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return status
    }

    /// Checks a refusal's body against `http.error` in proto/ with `tools/proto_check.py`.
    static func expectContractBody(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let report = try await ProtoChecker.check([SchemaLine(schema: "http.error", json: Data(body.utf8))])
        #expect(report.exitCode == 0, "\(report.output)", sourceLocation: sourceLocation)
    }
}
