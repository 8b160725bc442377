import LWS
import Testing

/// The server side of a socket knows who closed it and with which code.
@Suite("Close codes seen by the server")
struct CloseCodeTests {
    private func withServer(
        maxMessageBytes: Int = 64 * 1024, maxQueuedFrames: Int = 1024,
        _ body: (LWSContext, AsyncStream<CloseRecorder.Closed>.Iterator) async throws -> Void
    ) async throws {
        let recorder = CloseRecorder()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.maxMessageBytes = maxMessageBytes
        configuration.maxQueuedFrames = maxQueuedFrames
        configuration.maxWriteBytes = 1024
        let server = LWSContext(configuration: configuration)
        try server.start(webSocketDelegate: recorder)
        defer { server.stop() }
        try await body(server, recorder.closes.makeAsyncIterator())
    }

    private func client(of server: LWSContext) async throws -> LoopbackClient {
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port))
        #expect(await client.next() == .opened)
        return client
    }

    @Test func aCloseByThePeerKeepsItsCode() async throws {
        try await withServer { server, closes in
            var closes = closes
            let client = try await client(of: server)
            defer { client.stop() }
            client.close(code: 1000)
            #expect(await closes.next() == CloseRecorder.Closed(local: nil, peer: 1000, peerSentClose: true))
        }
    }

    @Test func aCloseByTheServerKeepsItsCode() async throws {
        try await withServer { server, closes in
            var closes = closes
            let client = try await client(of: server)
            defer { client.stop() }
            client.send("close-me")
            #expect(await closes.next()?.local == 4001)
        }
    }

    @Test func aSlowConsumerIsClosedWith4008() async throws {
        try await withServer(maxQueuedFrames: 4) { server, closes in
            var closes = closes
            let client = try await client(of: server)
            defer { client.stop() }
            client.send("flood")
            #expect(await closes.next()?.local == 4008)
        }
    }

    @Test func anOverSizeMessageIsClosedWith1009() async throws {
        try await withServer(maxMessageBytes: 2048) { server, closes in
            var closes = closes
            let client = try await client(of: server)
            defer { client.stop() }
            client.send(Array(repeating: UInt8(ascii: "y"), count: 5000))
            #expect(await closes.next()?.local == 1009)
        }
    }

    @Test func aPeerThatVanishesSentNoCloseFrame() async throws {
        try await withServer { server, closes in
            var closes = closes
            let client = try await client(of: server)
            client.stop()
            #expect(await closes.next() == CloseRecorder.Closed(local: nil, peer: nil, peerSentClose: false))
        }
    }
}
