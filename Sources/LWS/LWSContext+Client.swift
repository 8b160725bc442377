import CLibWebSockets
import Foundation

extension LWSContext {
    /// Starts a client WebSocket to `target`, speaking this context's protocol. Service thread only.
    ///
    /// `attachment` is set before lws can report anything about the socket. The delegate hears
    /// `webSocketDidOpen` after the handshake, or `webSocketDidClose` with an error if it fails;
    /// an attempt lws refuses at once throws instead.
    public func connect(to target: ClientTarget, attachment: AnyObject? = nil) throws -> WebSocketConnection {
        guard let lwsContext else { throw LWSError.connectFailed("context is stopped") }
        if target.tls != nil && configuration.clientTLS == nil {
            throw LWSError.connectFailed("wss:// needs a context created with clientTLS")
        }
        let connection = WebSocketConnection(id: makeConnectionID(), wsi: nil, context: self)
        connection.attachment = attachment
        let strings = CStringBag()
        var info = lws_client_connect_info()
        cg_zero(&info, MemoryLayout<lws_client_connect_info>.size)
        info.context = lwsContext
        info.address = strings.keep(target.host)
        info.port = Int32(target.port)
        info.path = strings.keep(target.path)
        info.host = strings.keep(target.host)
        info.origin = target.origin.map { strings.keep($0) } ?? nil
        info.protocol = target.offersSubprotocol ? UnsafePointer(protocolNamePointer) : nil
        info.local_protocol_name = UnsafePointer(protocolNamePointer)
        info.iface = target.sourceAddress.map { strings.keep($0) } ?? nil
        info.retry_and_idle_policy = UnsafePointer(idlePolicy)
        info.ssl_connection = Self.sslConnectionFlags(target.tls)
        if target.tls != nil {
            info.alpn = strings.keep(Self.alpn)
        }
        connection.clientStrings = strings
        info.opaque_user_data = Unmanaged.passRetained(connection as AnyObject).toOpaque()
        if target.tls != nil {
            TLSIndexGate.shared.beginHandshake()
            connection.tlsHandshakePending = true
        }
        let wsi = lws_client_connect_via_info(&info)
        if wsi == nil {
            connection.finishTLSHandshake()
            if !connection.closeReported {
                Unmanaged<AnyObject>.fromOpaque(info.opaque_user_data).release()
            }
            throw LWSError.connectFailed("\(target.host):\(target.port) refused the attempt")
        }
        if !connection.closeReported {
            connection.wsi = wsi
            liveConnections[connection.id] = connection
        }
        return connection
    }
}

/// C strings that must live as long as a client connection; freed with it.
final class CStringBag {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func keep(_ string: String) -> UnsafePointer<CChar> {
        let pointer = strdup(string)!
        pointers.append(pointer)
        return UnsafePointer(pointer)
    }

    deinit {
        for pointer in pointers { free(pointer) }
    }
}

/// Where a client connection goes: `ws://host:port/path` (or `wss://` with `tls`), optionally
/// from a chosen source address.
public struct ClientTarget: Sendable {
    public var host: String
    public var port: Int
    public var path: String
    /// The Origin to send, if any, as a host: lws 4.1 sends `Origin: http://<origin>`.
    public var origin: String?
    /// Local address to bind before connecting (spreads sockets over 127.0.0.x), or nil.
    public var sourceAddress: String?
    /// Whether the handshake names the context's subprotocol (`Sec-WebSocket-Protocol`).
    public var offersSubprotocol = true
    /// TLS for this connection (wss://), or nil for plain ws://. The context must have been
    /// created with `ContextConfiguration.clientTLS`.
    public var tls: ClientTLS?

    public init(
        host: String, port: Int, path: String = "/ws", origin: String? = nil, sourceAddress: String? = nil,
        tls: ClientTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.origin = origin
        self.sourceAddress = sourceAddress
        self.tls = tls
    }
}
