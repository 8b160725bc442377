import CallGateClient
import CallGateProtocol
import CallGateServer
import Testing
import TestSupport

/// The limit flags and variables of `callgate serve` reach the running gateway.
@Suite("Limit flags of the real executable")
struct ServeLimitFlagsTests {
    static let secret = "flags-test-secret"

    @Test func everyLimitFlagTakesEffect() async throws {
        let directory = try TemporaryDirectory()
        let gateway = try GatewayProcess(
            arguments: [
                "--database", directory.path("callgate.sqlite"), "--jwt-secret", Self.secret, "--admin-key", "k",
                "--allowed-origin", "https://app.example.com", "--allowed-origin", "https://admin.example.com",
                "--max-connections-per-address", "1", "--max-message-bytes", "2048", "--max-messages-per-second", "3",
                "--liveness-interval", "1",
            ],
            environment: ["CALLGATE_MAX_CONNECTIONS": "3"])
        defer { _ = gateway.terminate() }
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }

        #expect(try await RawWebSocket.open(port: gateway.port, origin: "https://evil.example.com").status == 403)
        let first = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        #expect(try await RawWebSocket.open(port: gateway.port).status == 429)

        let fast = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop, sourceAddress: "127.0.0.2")
        let big = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop, sourceAddress: "127.0.0.4")
        #expect(try await RawWebSocket.open(port: gateway.port, sourceAddress: "127.0.0.3").status == 503)

        _ = try await fast.connect(token: try await tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 600).token)
        for _ in 0..<10 {
            fast.sendRaw(#"{"id":"p","op":"ping","data":{}}"#)
        }
        var fastClose: UInt16?
        while let event = await fast.nextEvent(timeout: .seconds(5)) {
            if case .closed(let code) = event { fastClose = code }
        }
        #expect(fastClose == CloseCode.rateLimited)

        big.sendRaw(#"{"id":"big","op":"ping","data":{"pad":""# + String(repeating: "x", count: 3000) + #""}}"#)
        #expect(try await big.expectClose() == CloseCode.messageTooBig)

        // The two closes reach the process a moment after the clients saw them.
        var quiet = try await RawWebSocket.open(port: gateway.port, origin: "https://admin.example.com", sourceAddress: "127.0.0.5")
        for _ in 0..<60 where quiet.status == 503 {
            try await Task.sleep(for: .milliseconds(50))
            quiet = try await RawWebSocket.open(port: gateway.port, origin: "https://admin.example.com", sourceAddress: "127.0.0.5")
        }
        #expect(quiet.status == 101)
        let (ending, _) = await quiet.readSkippingPings(within: .seconds(3))
        guard case .endOfStream = ending else {
            Issue.record("the silent socket should be dropped after the 1 s liveness interval, got \(ending)")
            return
        }
        withExtendedLifetime(first) {}
    }
}
