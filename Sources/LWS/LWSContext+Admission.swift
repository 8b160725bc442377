import CLibWebSockets

/// Admission of new connections, on the service thread.
extension LWSContext {
    /// `LWS_CALLBACK_FILTER_NETWORK_CONNECTION`: once a shutdown began, a new TCP connection is
    /// closed as soon as it is accepted (-1), so clients go elsewhere at once.
    func filterNetworkConnection() -> Int32 {
        stopping ? -1 : 0
    }

    /// `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE`, called with the `Upgrade` header's value for
    /// `websocket` and `h2c` alike (lws 4.1 answers other values 403 itself): anything but
    /// `websocket` gets `foreignUpgradeRefusal`; a WebSocket upgrade asks the delegate's
    /// `UpgradeFilter`, if any. 0 lets the upgrade go on; after a refusal was written, -1 makes
    /// lws close the connection (the response is already in the socket, or flushed by lws before
    /// the close).
    func confirmUpgrade(_ wsi: OpaquePointer, upgrade: UnsafeMutableRawPointer?) -> Int32 {
        if let refused = refuseIfNotServed(wsi) { return refused }
        let name = upgrade.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
        guard name.lowercased() == "websocket" else {
            if case .refuse(let status, let contentType, let body) = configuration.foreignUpgradeRefusal {
                writeRefusal(status: status, contentType: contentType, body: body, on: wsi)
            }
            return -1
        }
        guard let filter = webSocketDelegate as? any UpgradeFilter else { return 0 }
        let request = UpgradeRequest(
            path: WSIHeaders.string(wsi, WSI_TOKEN_GET_URI) ?? "", origin: WSIHeaders.string(wsi, WSI_TOKEN_ORIGIN),
            clientAddress: clientAddress(of: wsi), forwardedFor: WSIHeaders.string(wsi, WSI_TOKEN_X_FORWARDED_FOR))
        switch filter.shouldUpgrade(request) {
        case .accept:
            return 0
        case .refuse(let status, let contentType, let body):
            writeRefusal(status: status, contentType: contentType, body: body, on: wsi)
            return -1
        }
    }

    /// Writes a complete response (headers, `connection: close` and body) in one `lws_write`.
    /// lws's own refusals (`lws_return_http_status`) write from this callback the same way: the
    /// connection is fresh and has nothing else queued.
    func writeRefusal(status: Int, contentType: String, body: [UInt8], on wsi: OpaquePointer) {
        let pre = cg_lws_pre()
        let capacity = pre + 512 + body.count
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let start = buffer + pre
        let end = buffer + capacity - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let name: [UInt8] = Array("connection:".utf8) + [0]
        let value: [UInt8] = Array("close".utf8) + [0]
        guard lws_add_http_common_headers(wsi, UInt32(status), contentType, lws_filepos_t(body.count), &cursor, end) == 0,
            lws_add_http_header_by_name(wsi, name, value, Int32(value.count - 1), &cursor, end) == 0,
            lws_finalize_http_header(wsi, &cursor, end) == 0, let headerEnd = cursor, end - headerEnd >= body.count
        else { return }
        headerEnd.update(from: body, count: body.count)
        _ = lws_write(wsi, start, headerEnd - start + body.count, LWS_WRITE_HTTP_HEADERS)
    }
}

/// Decides, before the 101 goes out, whether a WebSocket upgrade may proceed.
///
/// A server context asks its `WebSocketDelegate` when that delegate also conforms to this
/// protocol; otherwise every upgrade on the configured path proceeds. Called on the service
/// thread only. When it answers `.accept`, `webSocketDidOpen` for that socket follows within the
/// same lws callback (or nothing, if the handshake fails), so a count checked here and
/// incremented in `webSocketDidOpen` cannot be overtaken by another upgrade.
public protocol UpgradeFilter: AnyObject {
    func shouldUpgrade(_ request: UpgradeRequest) -> UpgradeDecision
}

/// What an `UpgradeFilter` answers to a WebSocket upgrade request.
public enum UpgradeDecision: Sendable, Equatable {
    /// The handshake goes on; the socket opens (`webSocketDidOpen`) unless the handshake fails.
    case accept
    /// The request gets this plain HTTP response instead of 101, and the connection closes.
    case refuse(status: Int, contentType: String, body: [UInt8])
}

/// A WebSocket upgrade request as the server sees it before answering, for an `UpgradeFilter`.
/// Only `Upgrade: websocket` requests get this far; others get `foreignUpgradeRefusal`.
public struct UpgradeRequest: Sendable {
    /// The request path, e.g. "/ws".
    public let path: String
    /// The `Origin` header, nil when absent (browsers always send one; most other clients none).
    public let origin: String?
    /// The TCP peer's address; see `LWSContext.clientAddress(of:)`.
    public let clientAddress: String
    /// The `X-Forwarded-For` header, for a filter that trusts some proxies; nil when absent.
    public let forwardedFor: String?

    public init(path: String, origin: String?, clientAddress: String, forwardedFor: String? = nil) {
        self.path = path
        self.origin = origin
        self.clientAddress = clientAddress
        self.forwardedFor = forwardedFor
    }
}

/// Every accepted TCP connection, from `LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED` to
/// `LWS_CALLBACK_WSI_DESTROY`, told to the delegate's `ConnectionFilter`. Service thread only.
///
/// A wsi keeps its pointer from accept to destroy, through the upgrade to a WebSocket, so it is
/// the key. lws 4.1 issues the accept callback a second time when a connection changes role
/// after its HTTP request (a `CONNECT`); that one is not a new connection.
extension LWSContext {
    /// One accepted connection: where from, and the response its first request gets when the
    /// filter refused it.
    struct AcceptedConnection {
        let peerAddress: String
        let refusal: UpgradeDecision
    }

    func connectionAccepted(_ wsi: OpaquePointer) {
        guard acceptedConnections[wsi] == nil, let filter = webSocketDelegate as? any ConnectionFilter else { return }
        let peer = clientAddress(of: wsi)
        acceptedConnections[wsi] = AcceptedConnection(peerAddress: peer, refusal: filter.shouldServe(connectionFrom: peer))
    }

    func connectionDestroyed(_ wsi: OpaquePointer) {
        guard let accepted = acceptedConnections.removeValue(forKey: wsi) else { return }
        (webSocketDelegate as? any ConnectionFilter)?.connectionEnded(from: accepted.peerAddress)
    }

    /// When the filter refused `wsi`'s connection, writes the refusal and returns -1 (lws then
    /// closes it); nil when the connection is served.
    func refuseIfNotServed(_ wsi: OpaquePointer) -> Int32? {
        guard case .refuse(let status, let contentType, let body) = acceptedConnections[wsi]?.refusal else { return nil }
        writeRefusal(status: status, contentType: contentType, body: body, on: wsi)
        return -1
    }
}

/// Decides, as each TCP connection is accepted, whether its requests will be served: the hook
/// for caps on connections per client address and per process that plain HTTP, slow or idle
/// connections count against as much as WebSockets.
///
/// A server context asks its `WebSocketDelegate` when that delegate also conforms to this
/// protocol. Called on the service thread only. Every connection `shouldServe` was asked about
/// gets exactly one `connectionEnded`, refused or not, when lws lets go of it.
public protocol ConnectionFilter: AnyObject {
    /// A TCP connection from `peerAddress` was accepted. `.accept` serves it; `.refuse` answers
    /// its first request (HTTP or upgrade) with that response and closes it.
    func shouldServe(connectionFrom peerAddress: String) -> UpgradeDecision
    /// A connection accepted from `peerAddress` has closed.
    func connectionEnded(from peerAddress: String)
}
