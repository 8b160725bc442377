import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import WSClient

/// The transport apps use: SwiftNIO's WebSocket client (hummingbird's WSClient) on NIOPosix
/// sockets, on Linux and on Apple's systems alike; TLS (NIOSSL) for `wss://` URLs, checked
/// against the system's trusted roots unless `tls` says otherwise. It pings an idle socket every
/// `pingInterval` and closes one whose pong does not come, so a dead network is noticed; a
/// handshake (TCP, TLS, the HTTP upgrade) that takes longer than `handshakeTimeout` fails.
public struct WebSocketTransport: CallGateTransport {
    /// The largest frame taken from the gateway (a connect result with many active calls and
    /// sessions is the largest the gateway sends); larger ones close the socket.
    public static let maxFrameSize = 1 << 20

    /// How long a socket that does not answer a close frame is kept before it is dropped.
    static let closeGrace = Duration.seconds(5)

    private let tls: TLSConfiguration?
    private let pingInterval: Duration
    private let handshakeTimeout: Duration
    private let logger: Logger

    /// Makes a transport; `tls` replaces the default client TLS configuration for `wss://`.
    public init(
        tls: TLSConfiguration? = nil, pingInterval: Duration = .seconds(20), handshakeTimeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "CallGateKit")
    ) {
        self.tls = tls
        self.pingInterval = pingInterval
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }

    public func open(_ url: URL, subprotocol: String) async throws -> any TransportSocket {
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = subprotocol
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: Self.maxFrameSize, additionalHeaders: headers, autoPing: .enabled(timePeriod: pingInterval))
        let socket = WebSocketSocket()
        let (tls, logger, handshakeTimeout) = (self.tls, self.logger, self.handshakeTimeout)
        let handshake = Handshake()
        let running = Task {
            do {
                let closing = try await WebSocketClient.connect(
                    url: url.absoluteString, configuration: configuration, tlsConfiguration: tls, logger: logger
                ) { inbound, outbound, _ in
                    await socket.attach(outbound)
                    // A handshake that completed after `open` gave up: nobody uses this socket.
                    guard await handshake.succeed(socket) else { return }
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
        await socket.keep(running)
        Task {
            try? await Task.sleep(for: handshakeTimeout)
            if await handshake.fail(WebSocketTransportError.handshakeTimedOut(url.absoluteString)) {
                running.cancel()
            }
        }
        return try await handshake.outcome()
    }
}

/// Why a socket could not be opened, besides the network's own errors.
public enum WebSocketTransportError: Error, CustomStringConvertible {
    /// The server ended the connection before the WebSocket handshake completed.
    case refused(String)
    /// A frame was sent on a socket whose handshake is not done.
    case notOpen
    /// The handshake (TCP, TLS, the HTTP upgrade) did not complete in time.
    case handshakeTimedOut(String)

    public var description: String {
        switch self {
        case .refused(let url): "the WebSocket handshake with \(url) did not complete"
        case .notOpen: "the socket is not open"
        case .handshakeTimedOut(let url): "the WebSocket handshake with \(url) did not complete in time"
        }
    }
}

/// How a handshake ended, the first way only: the opened socket, or the failure to open it.
private actor Handshake {
    private var result: Result<any TransportSocket, any Error>?
    private var waiting: CheckedContinuation<any TransportSocket, any Error>?

    /// The outcome, waiting for it.
    func outcome() async throws -> any TransportSocket {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiting = $0 }
    }

    /// Hands over `socket`; false when the handshake had ended already (it timed out).
    @discardableResult
    func succeed(_ socket: any TransportSocket) -> Bool {
        settle(.success(socket))
    }

    /// Fails the handshake; false when it had ended already.
    @discardableResult
    func fail(_ error: any Error) -> Bool {
        settle(.failure(error))
    }

    private func settle(_ outcome: Result<any TransportSocket, any Error>) -> Bool {
        guard result == nil else { return false }
        result = outcome
        waiting?.resume(with: outcome)
        waiting = nil
        return true
    }
}

/// A socket of `WebSocketTransport`: the handler's writer, and its frames as `events`.
private actor WebSocketSocket: TransportSocket {
    nonisolated let events: AsyncStream<TransportEvent>
    private nonisolated let feed: AsyncStream<TransportEvent>.Continuation
    private var outbound: WebSocketOutboundWriter?
    /// The task running the client; cancelled when a close is not answered in time.
    private var running: Task<Void, Never>?

    init() {
        (events, feed) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func attach(_ outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    func keep(_ task: Task<Void, Never>) {
        running = task
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

    /// Sends the close frame and gives the gateway `closeGrace` to answer it; past that, or
    /// when the frame cannot be written, the socket is dropped.
    func close(code: UInt16, reason: String) async {
        let running = self.running
        Task {
            try? await Task.sleep(for: WebSocketTransport.closeGrace)
            running?.cancel()
        }
        try? await outbound?.close(WebSocketErrorCode(codeNumber: Int(code)), reason: reason)
    }
}
