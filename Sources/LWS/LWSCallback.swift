import CLibWebSockets

/// The one C callback of every protocol: finds the owning `LWSContext` through the context user
/// pointer and the Swift object of the socket through the wsi's opaque user data.
func lwsCallback(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi, let lwsContext = lws_get_context(wsi), let owner = lws_context_user(lwsContext) else {
        return 0
    }
    let context = Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue()
    context.assertOnServiceThread()
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        context.drainMailbox()
        return 0
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        return context.filterNetworkConnection()
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return context.confirmUpgrade(wsi, upgrade: input)
    case LWS_CALLBACK_RECEIVE_PONG:
        (attached(wsi) as? WebSocketConnection)?.heard()
        return 0
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return WSIHeaders.string(wsi, WSI_TOKEN_GET_URI) == context.configuration.webSocketPath ? 0 : -1
    case LWS_CALLBACK_ESTABLISHED:
        context.serverConnectionOpened(wsi)
        return 0
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if let connection = attached(wsi) as? WebSocketConnection {
            connection.isEstablished = true
            connection.finishTLSHandshake()
            context.webSocketDelegate?.webSocketDidOpen(connection)
        }
        return 0
    case LWS_CALLBACK_RECEIVE, LWS_CALLBACK_CLIENT_RECEIVE:
        return context.received(on: wsi, input: input, length: length)
    case LWS_CALLBACK_SERVER_WRITEABLE, LWS_CALLBACK_CLIENT_WRITEABLE:
        return (attached(wsi) as? WebSocketConnection)?.writable() ?? 0
    case LWS_CALLBACK_TIMER:
        return (attached(wsi) as? WebSocketConnection)?.closeTimerFired() ?? 0
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        return context.peerClosed(wsi, payload: UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        context.connectionAccepted(wsi)
        return 0
    case LWS_CALLBACK_CLOSED, LWS_CALLBACK_CLIENT_CLOSED:
        context.connectionClosed(wsi, error: nil)
        return 0
    case LWS_CALLBACK_WSI_DESTROY:
        context.connectionClosed(wsi, error: nil)
        context.connectionDestroyed(wsi)
        return 0
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        context.connectionClosed(wsi, error: message)
        return 0
    case LWS_CALLBACK_HTTP:
        return context.httpRequestStarted(wsi)
    case LWS_CALLBACK_HTTP_BODY:
        if let exchange = attached(wsi) as? HTTPExchange, let input {
            context.append(UnsafeRawBufferPointer(start: input, count: length), to: exchange)
        }
        return 0
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if let exchange = attached(wsi) as? HTTPExchange {
            context.httpHandler?.handle(exchange)
        }
        return 0
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return context.httpWritable(wsi)
    case LWS_CALLBACK_CLOSED_HTTP:
        context.httpClosed(wsi)
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

/// The Swift object attached to a wsi, if any (a `WebSocketConnection` or an `HTTPExchange`).
func attached(_ wsi: OpaquePointer) -> AnyObject? {
    guard let pointer = lws_get_opaque_user_data(wsi) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
}

/// Attaches `object` to `wsi` with a retain, releasing whatever was attached before.
func attach(_ object: AnyObject?, to wsi: OpaquePointer) {
    if let old = lws_get_opaque_user_data(wsi) {
        Unmanaged<AnyObject>.fromOpaque(old).release()
    }
    lws_set_opaque_user_data(wsi, object.map { Unmanaged.passRetained($0).toOpaque() })
}
