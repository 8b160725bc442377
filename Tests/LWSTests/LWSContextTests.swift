import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LWS
import Testing

@Suite("LWSContext server and client over loopback")
struct LWSContextTests {
    private func startServer(maxMessageBytes: Int = 64 * 1024, maxQueuedFrames: Int = 1024) throws -> (LWSContext, EchoHandler) {
        let handler = EchoHandler()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.maxMessageBytes = maxMessageBytes
        configuration.maxQueuedFrames = maxQueuedFrames
        let context = LWSContext(configuration: configuration)
        try context.start(webSocketDelegate: handler, httpHandler: handler)
        return (context, handler)
    }

    private func startClient(_ probe: ClientProbe, port: Int, offersSubprotocol: Bool = true) throws -> (LWSContext, Box) {
        let client = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "test.v1"))
        try client.start(webSocketDelegate: probe)
        let box = Box()
        client.post {
            var target = ClientTarget(host: "127.0.0.1", port: port)
            target.offersSubprotocol = offersSubprotocol
            box.connection = try? client.connect(to: target)
        }
        return (client, box)
    }

    final class Box: @unchecked Sendable {
        var connection: WebSocketConnection?
    }

    @Test func listensOnAnEphemeralPortAndEchoesLargeMessages() async throws {
        let (server, _) = try startServer()
        defer { server.stop() }
        #expect(server.port > 0)
        let probe = ClientProbe()
        let (client, box) = try startClient(probe, port: server.port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        let big = String(repeating: "x", count: 40_000)
        client.post { box.connection?.send(OutboundFrame(Array("hello".utf8))); box.connection?.send(OutboundFrame(Array(big.utf8))) }
        #expect(await iterator.next() == .message("hello"))
        #expect(await iterator.next() == .message(big))
        client.post { box.connection?.send(OutboundFrame(Array("close-me".utf8))) }
        let closed = await iterator.next()
        #expect(closed == .closed(code: 4001, error: nil), "\(String(describing: closed))")
    }

    @Test func acceptsAHandshakeWithoutSubprotocol() async throws {
        let (server, _) = try startServer()
        defer { server.stop() }
        let probe = ClientProbe()
        let (client, box) = try startClient(probe, port: server.port, offersSubprotocol: false)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        client.post { box.connection?.send(OutboundFrame(Array("plain".utf8))) }
        #expect(await iterator.next() == .message("plain"))
    }

    @Test func closesAnOverSizeMessageWith1009() async throws {
        let (server, _) = try startServer(maxMessageBytes: 2048)
        defer { server.stop() }
        let probe = ClientProbe()
        let (client, box) = try startClient(probe, port: server.port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        client.post { box.connection?.send(OutboundFrame(Array(repeating: UInt8(ascii: "y"), count: 5000))) }
        #expect(await iterator.next() == .closed(code: 1009, error: nil))
    }

    @Test func closesASlowConsumerWith4008() async throws {
        let (server, _) = try startServer(maxQueuedFrames: 4)
        defer { server.stop() }
        let probe = ClientProbe()
        let (client, box) = try startClient(probe, port: server.port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        client.post { box.connection?.send(OutboundFrame(Array("flood".utf8))) }
        let closed = await iterator.next()
        #expect(closed == .closed(code: 4008, error: nil), "\(String(describing: closed))")
    }

    @Test func stoppingTheServerClosesItsSockets() async throws {
        let (server, _) = try startServer()
        let probe = ClientProbe()
        let (client, _) = try startClient(probe, port: server.port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        server.stop()
        #expect(await iterator.next() == .closed(code: nil, error: nil))
    }

    @Test func stoppingWithACloseCodeSendsItToEverySocket() async throws {
        let (server, _) = try startServer()
        let probe = ClientProbe()
        let (client, box) = try startClient(probe, port: server.port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        #expect(await iterator.next() == .opened)
        client.post { box.connection?.send(OutboundFrame(Array("last words".utf8))) }
        #expect(await iterator.next() == .message("last words"))
        server.stop(closeCode: 1001, grace: .seconds(5))
        #expect(await iterator.next() == .closed(code: 1001, error: nil))
    }

    @Test func reportsAFailedConnect() async throws {
        let (server, _) = try startServer()
        let port = server.port
        server.stop()
        let probe = ClientProbe()
        let (client, _) = try startClient(probe, port: port)
        defer { client.stop() }
        var iterator = probe.events.makeAsyncIterator()
        let event = await iterator.next()
        guard case .closed(_, let error) = event else {
            Issue.record("expected a close, got \(String(describing: event))")
            return
        }
        #expect(error != nil)
    }

    @Test func servesPlainHTTPWithBodies() async throws {
        let (server, _) = try startServer()
        defer { server.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/things/a%20b?x=1&y=2")!)
        request.httpMethod = "PUT"
        request.httpBody = Data(repeating: 65, count: 3000)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "x-echo") == "yes")
        #expect(String(decoding: data, as: UTF8.self) == "PUT /v1/things/a b x=1&y=2 3000")
    }

    @Test func refusesUpgradesOnOtherPaths() async throws {
        let (server, _) = try startServer()
        defer { server.stop() }
        let probe = ClientProbe()
        let client = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "test.v1"))
        try client.start(webSocketDelegate: probe)
        defer { client.stop() }
        let port = server.port
        client.post { _ = try? client.connect(to: ClientTarget(host: "127.0.0.1", port: port, path: "/elsewhere")) }
        var iterator = probe.events.makeAsyncIterator()
        let event = await iterator.next()
        guard case .closed(_, let error) = event else {
            Issue.record("expected a refused upgrade, got \(String(describing: event))")
            return
        }
        #expect(error != nil)
    }
}
