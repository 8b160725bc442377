import CLibWebSockets

/// One plain HTTP request on the server and the response to it, on the service thread.
///
/// The request is complete (headers and body) when the handler sees it. The handler may
/// respond at once or later (after work on another thread came back through the mailbox);
/// the response goes out as headers, then body, one `lws_write` per writeable callback.
public final class HTTPExchange {
    /// The request method, upper case ("GET", "PUT", ...).
    public let method: String
    /// The decoded request path, without the query.
    public let path: String
    /// The query's `name=value` items, split at unencoded `&` and `;` and decoded by lws.
    public let queryItems: [String]
    /// The request headers the gateway reads, by lower-case name.
    public let headers: [String: String]
    /// The peer's IP address as text.
    public let peerAddress: String
    /// The request body (empty for GET and DELETE).
    public internal(set) var body: [UInt8] = []
    /// Whether the body passed the configured cap; the rest of it was dropped.
    public internal(set) var bodyTooLarge = false
    /// Why the request's length cannot be trusted, nil when it can: a `Content-Length` that is
    /// not a plain decimal number (lws 4.1 reads `abc` as 0 and would parse the body as a second
    /// request), or a `Transfer-Encoding` (lws 4.1 does not decode chunked bodies). The handler
    /// is called at once, without a body, and must answer 400 and close.
    public internal(set) var framingProblem: String?
    /// Whether the socket went away before the response was written.
    public var isClosed: Bool { wsi == nil }

    var wsi: OpaquePointer?
    private unowned let context: LWSContext
    private var response: Response?
    private var headersSent = false

    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]
    }

    init(
        wsi: OpaquePointer, context: LWSContext, method: String, path: String, queryItems: [String],
        headers: [String: String], peerAddress: String
    ) {
        self.wsi = wsi
        self.context = context
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.peerAddress = peerAddress
    }

    /// Sends the response; later calls, and calls after the peer left, are ignored.
    /// `headers` should include "content-type" when there is a body.
    public func respond(status: Int, headers: [(String, String)], body: [UInt8]) {
        context.assertOnServiceThread()
        guard let wsi, response == nil, context.acceptsWrites else { return }
        response = Response(status: status, headers: headers, body: body)
        lws_callback_on_writable(wsi)
    }

    /// Writes the headers or the body; returns -1 when the socket should close: after a failed
    /// write, after a response to a request whose framing could not be trusted (what follows it
    /// on the connection is not a request), or when lws ends the transaction.
    func writable() -> Int32 {
        guard let wsi, let response else { return 0 }
        if !headersSent {
            headersSent = true
            if writeHeaders(response, on: wsi) != 0 { return -1 }
            if !response.body.isEmpty {
                lws_callback_on_writable(wsi)
                return 0
            }
        } else {
            let frame = OutboundFrame(response.body)
            let written = lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_FINAL)
            if written < frame.count { return -1 }
        }
        self.wsi = nil
        if framingProblem != nil { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    private func writeHeaders(_ response: Response, on wsi: OpaquePointer) -> Int32 {
        let pre = cg_lws_pre()
        let capacity = pre + 2048
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let start = buffer + pre
        let end = buffer + capacity - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let contentType = response.headers.first { $0.0.lowercased() == "content-type" }?.1
        let status = lws_add_http_common_headers(
            wsi, UInt32(response.status), contentType, lws_filepos_t(response.body.count), &cursor, end)
        if status != 0 { return -1 }
        for (name, value) in response.headers where name.lowercased() != "content-type" {
            let added = "\(name.lowercased()):".withCString { namePointer in
                value.withCString { valuePointer in
                    lws_add_http_header_by_name(
                        wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                        UnsafeRawPointer(valuePointer).assumingMemoryBound(to: UInt8.self),
                        Int32(value.utf8.count), &cursor, end)
                }
            }
            if added != 0 { return -1 }
        }
        return lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 ? -1 : 0
    }

    /// Forgets the lws handle once the socket closed.
    func detach() {
        wsi = nil
    }
}
