import LWS
import Testing

@Suite("Liveness pings keep live peers")
struct LivenessTests {
    /// The lws client answers pings; a server that did not count pongs as life would drop it
    /// after 7/8 of the interval, long before the client speaks again.
    @Test func aQuietPeerThatAnswersPingsStaysConnected() async throws {
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.livenessInterval = .milliseconds(400)
        let server = LWSContext(configuration: configuration)
        try server.start(webSocketDelegate: EchoHandler())
        defer { server.stop() }
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port))
        defer { client.stop() }
        #expect(await client.next() == .opened)
        try await Task.sleep(for: .milliseconds(1500))
        client.send("still here")
        #expect(await client.next() == .message("still here"))
    }
}
