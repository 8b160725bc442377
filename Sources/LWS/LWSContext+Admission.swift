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
