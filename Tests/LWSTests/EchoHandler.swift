import LWS

/// A server delegate that echoes every text message and answers every HTTP request with its method and path.
final class EchoHandler: WebSocketDelegate, HTTPHandler {
    func webSocketDidOpen(_ connection: WebSocketConnection) {}

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        if message == Array("close-me".utf8) {
            connection.close(code: 4001, reason: "asked to")
        } else if message == Array("flood".utf8) {
            for index in 0..<10 {
                connection.send(OutboundFrame(Array("frame \(index)".utf8)))
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
