import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LWS
import Testing

@Suite("LWSContext server and client over loopback")
struct LWSContextTests {
    private func startServer(maxMessageBytes: Int = 64 * 1024, maxQueuedFrames: Int = 1024) throws -> LWSContext {
        let handler = EchoHandler()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.maxMessageBytes = maxMessageBytes
        configuration.maxQueuedFrames = maxQueuedFrames
        configuration.maxWriteBytes = 1024
        let context = LWSContext(configuration: configuration)
        try context.start(webSocketDelegate: handler, httpHandler: handler)
        return context
    }

    private func client(of server: LWSContext, path: String = "/ws", offersSubprotocol: Bool = true) throws -> LoopbackClient {
        var target = ClientTarget(host: "127.0.0.1", port: server.port, path: path)
        target.offersSubprotocol = offersSubprotocol
        return try LoopbackClient(target)
    }

    @Test func listensOnAnEphemeralPortAndEchoesLargeMessages() async throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(server.port > 0)
        let client = try client(of: server)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        let big = String(repeating: "x", count: 40_000)
        client.send("hello")
        client.send(big)
        #expect(await client.next() == .message("hello"))
        #expect(await client.next() == .message(big))
        client.send("close-me")
        #expect(await client.next() == .closed(code: 4001, error: nil))
    }

    @Test func acceptsAHandshakeWithoutSubprotocol() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try client(of: server, offersSubprotocol: false)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        client.send("plain")
        #expect(await client.next() == .message("plain"))
    }

    @Test func closesAnOverSizeMessageWith1009() async throws {
        let server = try startServer(maxMessageBytes: 2048)
        defer { server.stop() }
        let client = try client(of: server)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        client.send(Array(repeating: UInt8(ascii: "y"), count: 5000))
        #expect(await client.next() == .closed(code: 1009, error: nil))
    }

    @Test func closesASlowConsumerWith4008() async throws {
        let server = try startServer(maxQueuedFrames: 4)
        defer { server.stop() }
        let client = try client(of: server)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        client.send("flood")
        #expect(await client.next() == .message(String(repeating: "0", count: 4000)))
        #expect(await client.next() == .closed(code: 4008, error: nil))
    }

    @Test func stoppingTheServerClosesItsSockets() async throws {
        let server = try startServer()
        let client = try client(of: server)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        server.stop()
        #expect(await client.next() == .closed(code: nil, error: nil))
    }

    @Test func stoppingWithACloseCodeSendsItToEverySocket() async throws {
        let server = try startServer()
        let client = try client(of: server)
        defer { client.stop() }
        #expect(await client.next() == .opened)
        client.send("last words")
        #expect(await client.next() == .message("last words"))
        server.stop(closeCode: 1001, grace: .seconds(5))
        #expect(await client.next() == .closed(code: 1001, error: nil))
    }

    @Test func reportsAFailedConnect() async throws {
        let server = try startServer()
        let port = server.port
        server.stop()
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: port))
        defer { client.stop() }
        guard case .closed(_, let error) = await client.next() else {
            Issue.record("expected a failed connect")
            return
        }
        #expect(error != nil)
    }

    @Test func refusesUpgradesOnOtherPaths() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try client(of: server, path: "/elsewhere")
        defer { client.stop() }
        guard case .closed(_, let error) = await client.next() else {
            Issue.record("expected a refused upgrade")
            return
        }
        #expect(error != nil)
    }

    @Test func servesPlainHTTPWithBodies() async throws {
        let server = try startServer()
        defer { server.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/things/a%20b?x=1&y=2")!)
        request.httpMethod = "PUT"
        request.httpBody = Data(repeating: 65, count: 3000)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "x-echo") == "yes")
        #expect(String(decoding: data, as: UTF8.self) == "PUT /v1/things/a b x=1|y=2 3000")
    }
}
