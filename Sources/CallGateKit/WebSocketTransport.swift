import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import WSClient

/// The transport apps use: SwiftNIO's WebSocket client (hummingbird's WSClient), on NIOPosix on
/// Linux and Network.framework's transport on Apple's systems; TLS for `wss://` URLs, checked
/// against the system's trusted roots unless `tls` says otherwise. It pings an idle socket every
/// `pingInterval` and closes one whose pong does not come, so a dead network is noticed.
public struct WebSocketTransport: CallGateTransport {
    /// The largest frame taken from the gateway (a connect result with many active calls and
    /// sessions is the largest the gateway sends); larger ones close the socket.
    public static let maxFrameSize = 1 << 20

    private let tls: TLSConfiguration?
    private let pingInterval: Duration
    private let logger: Logger

    /// Makes a transport; `tls` replaces the default client TLS configuration for `wss://`.
    public init(tls: TLSConfiguration? = nil, pingInterval: Duration = .seconds(20), logger: Logger = Logger(label: "CallGateKit")) {
        self.tls = tls
        self.pingInterval = pingInterval
        self.logger = logger
    }

    public func open(_ url: URL, subprotocol: String) async throws -> any TransportSocket {
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = subprotocol
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: Self.maxFrameSize, additionalHeaders: headers, autoPing: .enabled(timePeriod: pingInterval))
        let socket = WebSocketSocket()
        let (tls, logger) = (self.tls, self.logger)
        return try await withCheckedThrowingContinuation { (opened: CheckedContinuation<any TransportSocket, any Error>) in
            Task {
                let handshake = Handshake(opened)
                do {
                    let closing = try await WebSocketClient.connect(
                        url: url.absoluteString, configuration: configuration, tlsConfiguration: tls, logger: logger
                    ) { inbound, outbound, _ in
                        await socket.attach(outbound)
                        await handshake.succeed(socket)
                        for try await message in inbound.messages(maxSize: Self.maxFrameSize) {
                            if case .text(let text) = message {
                                socket.deliver(.text(text))
                            }
                        }
                    }
                    await handshake.fail(WebSocketTransportError.refused(url.absoluteString))
                    socket.deliver(.closed(code: closing.map { UInt16(webSocketErrorCode: $0.closeCode) }, reason: closing?.reason ?? ""))
                } catch {
                    await handshake.fail(error)
                    socket.deliver(.closed(code: nil, reason: String(describing: error)))
                }
                socket.finish()
            }
        }
    }
}

/// Why a socket could not be opened, besides the network's own errors.
public enum WebSocketTransportError: Error, CustomStringConvertible {
    /// The server ended the connection before the WebSocket handshake completed.
    case refused(String)
    /// A frame was sent on a socket whose handshake is not done.
    case notOpen

    public var description: String {
        switch self {
        case .refused(let url): "the WebSocket handshake with \(url) did not complete"
        case .notOpen: "the socket is not open"
        }
    }
}

/// Hands the opened socket, or the failure to open it, to the waiting `open` once.
private actor Handshake {
    private var waiting: CheckedContinuation<any TransportSocket, any Error>?

    init(_ waiting: CheckedContinuation<any TransportSocket, any Error>) {
        self.waiting = waiting
    }

    func succeed(_ socket: any TransportSocket) {
        waiting?.resume(returning: socket)
        waiting = nil
    }

    func fail(_ error: any Error) {
        waiting?.resume(throwing: error)
        waiting = nil
    }
}

/// A socket of `WebSocketTransport`: the handler's writer, and its frames as `events`.
private actor WebSocketSocket: TransportSocket {
    nonisolated let events: AsyncStream<TransportEvent>
    private nonisolated let feed: AsyncStream<TransportEvent>.Continuation
    private var outbound: WebSocketOutboundWriter?

    init() {
        (events, feed) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func attach(_ outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    nonisolated func deliver(_ event: TransportEvent) {
        feed.yield(event)
    }

    nonisolated func finish() {
        feed.finish()
    }

    func send(_ text: String) async throws {
        guard let outbound else { throw WebSocketTransportError.notOpen }
        try await outbound.write(.text(text))
    }

    func close(code: UInt16, reason: String) async {
        try? await outbound?.close(WebSocketErrorCode(codeNumber: Int(code)), reason: reason)
    }
}
