import CLibWebSockets

/// What the C callback does for each kind of event, on the service thread.
extension LWSContext {
    func serverConnectionOpened(_ wsi: OpaquePointer) {
        let connection = WebSocketConnection(id: makeConnectionID(), wsi: wsi, context: self)
        connection.isEstablished = true
        connection.peerAddress = WSIHeaders.peerAddress(wsi)
        connection.clientAddress = clientAddress(of: wsi)
        connection.path = WSIHeaders.string(wsi, WSI_TOKEN_GET_URI) ?? ""
        connection.forwardedFor = WSIHeaders.string(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        attach(connection, to: wsi)
        liveConnections[connection.id] = connection
        watchLiveness(of: connection)
        webSocketDelegate?.webSocketDidOpen(connection)
    }

    /// One `RECEIVE`: a chunk of at most `rxBufferSize` bytes of a frame, possibly empty (lws
    /// delivers empty frames too). A frame ends where lws has no payload of it left; each frame
    /// end is offered to the delegate's rate limit before anything else is done with it. Only a
    /// whole message counts as hearing from the peer: a trickle of fragments does not keep a
    /// socket alive.
    func received(on wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let connection = attached(wsi) as? WebSocketConnection, !connection.closeReported,
            !connection.inputRefused
        else { return 0 }
        let frameEnded = lws_remaining_packet_payload(wsi) == 0
        if frameEnded, webSocketDelegate?.webSocketDidReceiveFrame(connection) == false {
            connection.refuseInput()
            return 0
        }
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        let result = connection.received(
            bytes, first: lws_is_first_fragment(wsi) != 0, frameEnded: frameEnded,
            final: frameEnded && lws_is_final_fragment(wsi) != 0, binary: lws_frame_is_binary(wsi) != 0)
        switch result {
        case .partial:
            return 0
        case .message(let message, let binary):
            connection.heard()
            webSocketDelegate?.webSocket(connection, didReceive: message, binary: binary)
            return 0
        case .tooBig:
            return fail(connection, on: wsi, code: configuration.messageTooBigCloseCode, reason: "message too big")
        case .tooManyFragments:
            return fail(connection, on: wsi, code: configuration.messageTooBigCloseCode, reason: "too many fragments")
        case .invalidText:
            return fail(connection, on: wsi, code: Self.invalidPayloadCloseCode, reason: "text is not valid UTF-8")
        }
    }

    /// `LWS_CALLBACK_WS_PEER_INITIATED_CLOSE`: notes the peer's code, and fails the connection
    /// when the close frame itself breaks RFC 6455 (a 1-byte payload or a code lws passes on
    /// unchecked: 1002; a reason that is not UTF-8: 1007) instead of echoing it.
    func peerClosed(_ wsi: OpaquePointer, payload: UnsafeRawBufferPointer) -> Int32 {
        guard let connection = attached(wsi) as? WebSocketConnection else { return 0 }
        connection.peerSentClose = true
        connection.endWrites()
        guard payload.count >= 2 else {
            return payload.count == 1 ? fail(connection, on: wsi, code: Self.protocolErrorCloseCode, reason: "") : 0
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        connection.peerCloseCode = code
        guard code < 5000 else { return fail(connection, on: wsi, code: Self.protocolErrorCloseCode, reason: "") }
        guard UTF8Validation.isValid(payload[2...]) else {
            return fail(connection, on: wsi, code: Self.invalidPayloadCloseCode, reason: "")
        }
        connection.peerCloseReason = String(decoding: payload[2...], as: UTF8.self)
        return 0
    }

    /// RFC 6455's code for a malformed frame.
    static let protocolErrorCloseCode: UInt16 = 1002
    /// RFC 6455's code for text that is not UTF-8.
    static let invalidPayloadCloseCode: UInt16 = 1007

    /// Fails the connection from inside its callback: lws sends a close frame with `code` and
    /// `reason`, then drops it (the -1 this returns).
    private func fail(_ connection: WebSocketConnection, on wsi: OpaquePointer, code: UInt16, reason: String) -> Int32 {
        connection.localCloseCode = code
        connection.endWrites()
        var text = Array(reason.utf8)
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &text, text.count)
        return -1
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
        if let refused = refuseIfNotServed(wsi) { return refused }
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
            ("transfer-encoding", WSI_TOKEN_HTTP_TRANSFER_ENCODING),
        ]
        for (name, token) in known {
            headers[name] = WSIHeaders.string(wsi, token)
        }
        headers["authtoken"] = WSIHeaders.custom(wsi, "authtoken")
        let exchange = HTTPExchange(
            wsi: wsi, context: self, method: Self.methodName(methodIndex), path: path, queryItems: WSIHeaders.queryItems(wsi),
            headers: headers, peerAddress: WSIHeaders.peerAddress(wsi))
        attach(exchange, to: wsi)
        let length = headers["content-length"]
        if headers["transfer-encoding"] != nil {
            exchange.framingProblem = "Transfer-Encoding is not supported: send Content-Length"
        } else if let length, !Self.isDecimal(length) {
            exchange.framingProblem = "Content-Length must be a decimal number of bytes"
        }
        if exchange.framingProblem != nil || (length.flatMap { Int($0) } ?? 0) == 0 {
            httpHandler?.handle(exchange)
        }
        return 0
    }

    /// Whether `text` is 1 to 18 ASCII digits: a length `Int` holds, and nothing lws would
    /// read differently.
    private static func isDecimal(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...18).contains(bytes.count) && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
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

extension LWSContext {
    /// The address a server connection is counted and reported under. Service thread only.
    ///
    /// The TCP peer's IP address, the same for `UpgradeRequest.clientAddress` and
    /// `WebSocketConnection.clientAddress`. Behind a reverse proxy it is the proxy's; the server
    /// resolves the real client from the forwarded header of the proxies it trusts.
    func clientAddress(of wsi: OpaquePointer) -> String {
        WSIHeaders.peerAddress(wsi)
    }
}
