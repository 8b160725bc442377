import CallGateKit
import CallGateProtocol
import Foundation

/// The gateway of a client test vector: a transport whose sockets the test scripts, frame by
/// frame (proto/vectors/README.md).
actor ScriptedGateway: CallGateTransport {
    /// Every socket the client opened, in order.
    private(set) var sockets: [ScriptedSocket] = []

    func open(_ url: URL, subprotocol: String) async throws -> any TransportSocket {
        let socket = ScriptedSocket()
        sockets.append(socket)
        return socket
    }

    /// The socket opened after the first `count`, waiting up to 3 s for it.
    func nextSocket(after count: Int = 0) async -> ScriptedSocket? {
        let deadline = ContinuousClock.now + .seconds(3)
        while sockets.count <= count {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return sockets[count]
    }
}

/// The gateway's end of one scripted socket.
actor ScriptedSocket: TransportSocket {
    nonisolated let events: AsyncStream<TransportEvent>
    private nonisolated let feed: AsyncStream<TransportEvent>.Continuation
    /// The requests the client sent and the script did not read yet.
    private var sent: [JSONValue] = []
    private var closed = false

    init() {
        (events, feed) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func send(_ text: String) async throws {
        guard !closed else { throw CallGateConnectionError.disconnected(code: nil) }
        sent.append(try JSONParser.parse(Array(text.utf8), maxDepth: 64))
    }

    func close(code: UInt16, reason: String) async {
        finish(code: code, reason: reason)
    }

    /// The gateway sends `frame`.
    func deliver(_ frame: JSONValue) throws {
        feed.yield(.text(String(decoding: try frame.encoded(), as: UTF8.self)))
    }

    /// The socket ends: with a close frame's `code`, or none (a lost network).
    func finish(code: UInt16?, reason: String) {
        guard !closed else { return }
        closed = true
        feed.yield(.closed(code: code, reason: reason))
        feed.finish()
    }

    /// The next request the client sent, waiting up to `limit` for it.
    func nextRequest(within limit: Duration) async -> JSONValue? {
        let deadline = ContinuousClock.now + limit
        while sent.isEmpty {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return sent.removeFirst()
    }
}
