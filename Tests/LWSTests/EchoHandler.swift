import LWS

/// A server delegate that echoes every text message and answers every HTTP request with its method and path.
/// "close-me" closes the socket with 4001; "flood" sends it `flood`.
final class EchoHandler: WebSocketDelegate, HTTPHandler {
    /// Ten new frames of 4,000 bytes: on a server whose `maxWriteBytes` is 1,024, lws keeps the
    /// tail of the first, so the other nine wait in the queue however fast the peer reads.
    static var flood: [OutboundFrame] {
        (0..<10).map { OutboundFrame(Array(repeating: UInt8(ascii: "0") + UInt8($0), count: 4000)) }
    }

    func webSocketDidOpen(_ connection: WebSocketConnection) {}

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        if message == Array("close-me".utf8) {
            connection.close(code: 4001, reason: "asked to")
        } else if message == Array("flood".utf8) {
            for frame in Self.flood {
                connection.send(frame)
            }
        } else {
            connection.send(OutboundFrame(message))
        }
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {}

    func handle(_ exchange: HTTPExchange) {
        let text = "\(exchange.method) \(exchange.path) \(exchange.queryItems.isEmpty ? "-" : exchange.queryItems.joined(separator: "|")) \(exchange.body.count)"
        exchange.respond(status: 200, headers: [("content-type", "text/plain"), ("x-echo", "yes")], body: Array(text.utf8))
    }
}
