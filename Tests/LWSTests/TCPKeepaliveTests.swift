import Foundation
import LWS
import Testing

@Suite("TCP keepalive on accepted sockets")
struct TCPKeepaliveTests {
    /// The kernel timer running on the server side of an established loopback connection to
    /// `port`, from /proc/net/tcp: 2 is the keepalive timer, 0 none.
    private func serverSideTimer(port: Int) throws -> Int? {
        let file = try #require(FileHandle(forReadingAtPath: "/proc/net/tcp"))
        defer { try? file.close() }
        let table = String(decoding: try #require(try file.readToEnd()), as: UTF8.self)
        let localPort = String(format: "%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 5, fields[1].hasSuffix(":" + localPort), fields[3] == "01" else { continue }
            return Int(fields[5].split(separator: ":")[0], radix: 16)
        }
        return nil
    }

    private func establishedTimer(keepalive: TCPKeepalive?) async throws -> Int? {
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.tcpKeepalive = keepalive
        let server = LWSContext(configuration: configuration)
        try server.start(webSocketDelegate: EchoHandler())
        defer { server.stop() }
        let client = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port))
        defer { client.stop() }
        #expect(await client.next() == .opened)
        return try serverSideTimer(port: server.port)
    }

    @Test func keepaliveRunsOnAcceptedSocketsWhenConfigured() async throws {
        let timer = try await establishedTimer(keepalive: TCPKeepalive(idleSeconds: 30, intervalSeconds: 10, probes: 3))
        #expect(timer == 2, "timer \(String(describing: timer))")
    }

    @Test func noKeepaliveWithoutTheSetting() async throws {
        let timer = try await establishedTimer(keepalive: nil)
        #expect(timer == 0, "timer \(String(describing: timer))")
    }
}
