import CLibWebSockets

/// What the C callback does for each kind of event, on the service thread.
extension LWSContext {
    func serverConnectionOpened(_ wsi: OpaquePointer) {
        let connection = WebSocketConnection(id: makeConnectionID(), wsi: wsi, context: self)
        connection.peerAddress = WSIHeaders.peerAddress(wsi)
        connection.clientAddress = clientAddress(of: wsi)
        connection.path = WSIHeaders.string(wsi, WSI_TOKEN_GET_URI) ?? ""
        connection.forwardedFor = WSIHeaders.string(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        attach(connection, to: wsi)
        liveConnections[connection.id] = connection
        watchLiveness(of: connection)
        webSocketDelegate?.webSocketDidOpen(connection)
    }

    func received(on wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let connection = attached(wsi) as? WebSocketConnection, !connection.closeReported else { return 0 }
        connection.heard()
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        let result = connection.received(
            bytes, first: lws_is_first_fragment(wsi) != 0, final: final, binary: lws_frame_is_binary(wsi) != 0)
        switch result {
        case .partial:
            return 0
        case .message(let message, let binary):
            webSocketDelegate?.webSocket(connection, didReceive: message, binary: binary)
            return 0
        case .tooBig:
            connection.localCloseCode = configuration.messageTooBigCloseCode
            var reason = Array("message too big".utf8)
            lws_close_reason(
                wsi, lws_close_status(rawValue: UInt32(configuration.messageTooBigCloseCode)), &reason, reason.count)
            return -1
        }
    }

    func connectionClosed(_ wsi: OpaquePointer, error: String?) {
        guard let connection = attached(wsi) as? WebSocketConnection else {
            if let exchange = attached(wsi) as? HTTPExchange {
                exchange.detach()
                attach(nil, to: wsi)
            }
            return
        }
        attach(nil, to: wsi)
        connection.detach()
        connection.finishTLSHandshake()
        guard !connection.closeReported else { return }
        connection.closeReported = true
        webSocketDelegate?.webSocketDidClose(connection, error: error)
        forget(connection)
    }

    func httpRequestStarted(_ wsi: OpaquePointer) -> Int32 {
        var uriPointer: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let methodIndex = lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength)
        guard methodIndex >= 0, let uriPointer else { return -1 }
        let path = String(decoding: UnsafeRawBufferPointer(start: uriPointer, count: Int(uriLength)), as: UTF8.self)
        var headers: [String: String] = [:]
        let known: [(String, lws_token_indexes)] = [
            ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION), ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE),
            ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH), ("origin", WSI_TOKEN_ORIGIN),
            ("x-forwarded-for", WSI_TOKEN_X_FORWARDED_FOR), ("host", WSI_TOKEN_HOST),
        ]
        for (name, token) in known {
            headers[name] = WSIHeaders.string(wsi, token)
        }
        headers["authtoken"] = WSIHeaders.custom(wsi, "authtoken")
        let exchange = HTTPExchange(
            wsi: wsi, context: self, method: Self.methodName(methodIndex), path: path, query: WSIHeaders.query(wsi),
            headers: headers, peerAddress: WSIHeaders.peerAddress(wsi))
        attach(exchange, to: wsi)
        let expectsBody = Int(headers["content-length"] ?? "0").map { $0 > 0 } ?? true
        if !expectsBody {
            httpHandler?.handle(exchange)
        }
        return 0
    }

    func append(_ bytes: UnsafeRawBufferPointer, to exchange: HTTPExchange) {
        guard !exchange.bodyTooLarge else { return }
        if exchange.body.count + bytes.count > configuration.maxHTTPBodyBytes {
            exchange.bodyTooLarge = true
            exchange.body = []
        } else {
            exchange.body.append(contentsOf: bytes)
        }
    }

    func httpWritable(_ wsi: OpaquePointer) -> Int32 {
        guard let exchange = attached(wsi) as? HTTPExchange else { return 0 }
        let result = exchange.writable()
        if exchange.isClosed && result == 0 {
            attach(nil, to: wsi)
        }
        return result
    }

    func httpClosed(_ wsi: OpaquePointer) {
        guard let exchange = attached(wsi) as? HTTPExchange else { return }
        exchange.detach()
        attach(nil, to: wsi)
    }

    private static func methodName(_ index: Int32) -> String {
        switch index {
        case Int32(LWSHUMETH_GET): "GET"
        case Int32(LWSHUMETH_POST): "POST"
        case Int32(LWSHUMETH_OPTIONS): "OPTIONS"
        case Int32(LWSHUMETH_PUT): "PUT"
        case Int32(LWSHUMETH_PATCH): "PATCH"
        case Int32(LWSHUMETH_DELETE): "DELETE"
        case Int32(LWSHUMETH_HEAD): "HEAD"
        default: "OTHER"
        }
    }
}
