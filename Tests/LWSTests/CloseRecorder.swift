import LWS

/// A server delegate that reports how each socket ended, as the server side saw it. It closes
/// a socket with 4001 on "close-me" and floods it with `EchoHandler.flood` on "flood".
final class CloseRecorder: WebSocketDelegate, @unchecked Sendable {
    struct Closed: Equatable, Sendable {
        var local: UInt16?
        var peer: UInt16?
        var peerSentClose: Bool
    }

    let closes: AsyncStream<Closed>
    private let continuation: AsyncStream<Closed>.Continuation

    init() {
        (closes, continuation) = AsyncStream.makeStream()
    }

    func webSocketDidOpen(_ connection: WebSocketConnection) {}

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        switch String(decoding: message, as: UTF8.self) {
        case "close-me":
            connection.close(code: 4001, reason: "asked to")
        case "flood":
            for frame in EchoHandler.flood {
                connection.send(frame)
            }
        default:
            break
        }
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        continuation.yield(Closed(
            local: connection.localCloseCode, peer: connection.peerCloseCode, peerSentClose: connection.peerSentClose))
    }
}
