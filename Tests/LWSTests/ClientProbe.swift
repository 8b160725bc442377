import LWS

/// A client delegate that turns socket events into an async stream for tests.
final class ClientProbe: WebSocketDelegate, @unchecked Sendable {
    enum Event: Equatable, Sendable {
        case opened
        case message(String)
        case closed(code: UInt16?, error: String?)
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    init() {
        (events, continuation) = AsyncStream.makeStream()
    }

    func webSocketDidOpen(_ connection: WebSocketConnection) {
        continuation.yield(.opened)
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        continuation.yield(.message(String(decoding: message, as: UTF8.self)))
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        continuation.yield(.closed(code: connection.peerCloseCode, error: error))
    }
}
