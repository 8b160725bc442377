import CLibWebSockets
import Glibc

/// One WebSocket, server side or client side, owned by the service thread of its `LWSContext`.
///
/// Every method must be called on that service thread. A message goes out at once when the
/// socket can take it: nothing of this connection is queued and lws holds no unsent tail of an
/// earlier write (`lws_partial_buffered`). Otherwise it waits in a bounded queue that the
/// writeable callback drains one `lws_write` at a time, after lws has sent that tail, so frames
/// leave in order and are never cut. A peer that lets the queue pass its cap is closed as a slow
/// consumer instead of growing memory. (lws 4.1.6, `lws_issue_raw`: what the kernel did not take
/// is kept in the wsi's `buflist_out` and sent before any writeable callback; this holds only
/// without permessage-deflate, which the context never offers.)
public final class WebSocketConnection {
    /// Unique within its context, never reused.
    public let id: UInt64
    /// The peer's IP address as text ("" when unknown).
    public internal(set) var peerAddress = ""
    /// The address the client is counted under (server side); see `LWSContext.clientAddress(of:)`.
    public internal(set) var clientAddress = ""
    /// The request path of the upgrade (server side), e.g. "/ws".
    public internal(set) var path = ""
    /// The `X-Forwarded-For` header of the upgrade request (server side), nil when absent.
    /// Anyone can send it: believe it only when `peerAddress` is a proxy you run.
    public internal(set) var forwardedFor: String?
    /// The close code the peer sent, if it closed first.
    public internal(set) var peerCloseCode: UInt16?
    /// The reason in the peer's close frame (UTF-8, at most 123 bytes), if it sent a code.
    public internal(set) var peerCloseReason: String?
    /// Whether the peer sent a close frame, with or without a code.
    public internal(set) var peerSentClose = false
    /// The close code this side closed the socket with (`close`, the slow-consumer and the
    /// message-too-big closes), or nil when it did not close it.
    public internal(set) var localCloseCode: UInt16?
    /// Whether the socket is gone or going: sends are dropped from then on.
    public var isClosing: Bool { wsi == nil || pendingClose != nil || writesEnded }
    /// Messages waiting to be written.
    public var queuedFrames: Int { queue.count }
    /// Free slot for the layer above (the server's session state, the client's handle).
    public var attachment: AnyObject?

    var wsi: OpaquePointer?
    unowned let context: LWSContext
    /// Set once the delegate heard of the close, so it hears it only once.
    var closeReported = false
    /// Keeps a client connection's host and path strings alive.
    var clientStrings: CStringBag?
    /// Whether this client connection's TLS handshake counts in `TLSIndexGate`.
    var tlsHandshakePending = false
    private var queue = FrameQueue()
    private var pendingClose: PendingClose?
    private var message: [UInt8] = []
    private var messageIsBinary = false
    private var messageTooBig = false
    /// Frames of the message being reassembled so far.
    private var messageFrames = 0
    /// Set once the delegate refused a frame (its rate limit): everything after it is dropped.
    private(set) var inputRefused = false
    /// When the peer was last heard from (a whole message or a pong), on `MonotonicClock`.
    private(set) var lastHeardMillis = MonotonicClock.millis()
    /// Whether a ping went out since the peer was last heard from.
    private(set) var pingSent = false
    /// When `close` was first asked for, on `MonotonicClock`; nil while open.
    private(set) var closeRequestedMillis: Int64?
    private var pingDue = false
    /// Set once the WebSocket handshake is done (server sockets are made then; client sockets
    /// at `CLIENT_ESTABLISHED`): before it, lws would send a frame raw into the HTTP upgrade.
    var isEstablished = false
    /// Set when lws closes the socket on its own: a direct write failed, the peer's close frame
    /// came, or a protocol failure was returned to lws. No frame may follow the close frame, so
    /// nothing more is written.
    private var writesEnded = false

    struct PendingClose {
        let code: UInt16
        let reason: String
        let flushFirst: Bool
    }

    init(id: UInt64, wsi: OpaquePointer?, context: LWSContext) {
        self.id = id
        self.wsi = wsi
        self.context = context
    }

    /// Writes a shared frame now if the socket can take it, else queues it; returns false when
    /// it was neither (closing, the write failed, or the queue is at its cap, in which case the
    /// connection is closed with the configured slow-consumer code).
    @discardableResult
    public func send(_ frame: OutboundFrame) -> Bool {
        context.assertOnServiceThread()
        guard let wsi, !isClosing, context.acceptsWrites else { return false }
        if isEstablished, queue.isEmpty, !pingDue, lws_partial_buffered(wsi) == 0 {
            guard lws_write(wsi, frame.payload, frame.count, LWS_WRITE_TEXT) >= frame.count else {
                failWrite(wsi)
                return false
            }
            return true
        }
        if queue.count >= context.configuration.maxQueuedFrames {
            close(code: context.configuration.slowConsumerCloseCode, reason: "outbound queue full", flushFirst: false)
            return false
        }
        queue.push(frame)
        if queue.count == 1 {
            lws_callback_on_writable(wsi)
        }
        return true
    }

    /// Closes with `code`; with `flushFirst` the frames already queued go out before the close frame.
    public func close(code: UInt16, reason: String, flushFirst: Bool = true) {
        context.assertOnServiceThread()
        guard let wsi, !isClosing, context.acceptsWrites else { return }
        pendingClose = PendingClose(code: code, reason: reason, flushFirst: flushFirst)
        localCloseCode = code
        closeRequestedMillis = MonotonicClock.millis()
        if !flushFirst { queue.removeAll() }
        lws_callback_on_writable(wsi)
    }

    /// Ends the TCP connection in both directions without a close frame, as a lost network
    /// does (the peer reads the end of the stream); lws then closes the socket as broken.
    public func drop() {
        context.assertOnServiceThread()
        guard let wsi else { return }
        let fd = lws_get_socket_fd(wsi)
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
        }
        endWrites()
    }

    /// A direct write failed (lws marked the socket unusable): no more writes, and lws closes
    /// the socket once its loop turns (woken now, so a write from a timer does not wait for the
    /// next I/O), not in the middle of whatever called `send`.
    private func failWrite(_ wsi: OpaquePointer) {
        endWrites()
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
        lws_cancel_service(context.lwsContext)
    }

    /// lws closes the socket on its own from here on: drops what is queued and refuses more.
    func endWrites() {
        writesEnded = true
        queue.removeAll()
    }

    /// Notes that the peer is alive: it sent something or answered a ping.
    func heard() {
        lastHeardMillis = MonotonicClock.millis()
        pingSent = false
    }

    /// Sends a WebSocket ping at the next writeable callback (ahead of queued messages).
    func ping() {
        context.assertOnServiceThread()
        guard let wsi, !isClosing, context.acceptsWrites else { return }
        pingSent = true
        pingDue = true
        lws_callback_on_writable(wsi)
    }

    /// Writes a due ping, else at most one queued frame, or starts the close; returns -1 when
    /// the write failed. Writes nothing once lws closes the socket on its own (it may still call
    /// back while it waits for the peer's close frame).
    func writable() -> Int32 {
        guard let wsi else { return -1 }
        guard !writesEnded else { return 0 }
        if pingDue, pendingClose == nil, let ping = context.liveness?.pingFrame {
            pingDue = false
            if lws_write(wsi, ping.payload, ping.count, LWS_WRITE_PING) < 0 { return -1 }
            if !queue.isEmpty {
                lws_callback_on_writable(wsi)
            }
            return 0
        }
        if let frame = queue.pop() {
            let written = lws_write(wsi, frame.payload, frame.count, LWS_WRITE_TEXT)
            if written < frame.count { return -1 }
            if !queue.isEmpty || pendingClose != nil {
                lws_callback_on_writable(wsi)
            }
            return 0
        }
        guard let pendingClose else { return 0 }
        var reason = Array(pendingClose.reason.utf8.prefix(120))
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(pendingClose.code)), &reason, reason.count)
        // A -1 from a writeable callback makes lws treat the socket as failed and drop the close
        // frame; a -1 from the wsi timer callback closes through the normal close handshake.
        lws_set_timer_usecs(wsi, 1)
        return 0
    }

    /// The close timer armed by `writable`: -1 lets lws send the close frame and shut the socket.
    func closeTimerFired() -> Int32 {
        pendingClose == nil ? 0 : -1
    }

    /// Adds one received chunk (`frameEnded`: the last of its frame; `final`: the last of its
    /// message); returns the whole message once its last chunk arrived, `.partial` before that,
    /// or why the message is refused: past the configured size, past the configured number of
    /// frames, or text that is not UTF-8.
    func received(
        _ bytes: UnsafeRawBufferPointer, first: Bool, frameEnded: Bool, final: Bool, binary: Bool
    ) -> ReceiveResult {
        if messageTooBig { return .tooBig }
        if first && final && message.isEmpty {
            guard bytes.count <= context.configuration.maxMessageBytes else { return .tooBig }
            guard binary || UTF8Validation.isValid(bytes) else { return .invalidText }
            return .message(Array(bytes), binary: binary)
        }
        if first { messageIsBinary = binary }
        if message.count + bytes.count > context.configuration.maxMessageBytes {
            messageTooBig = true
            message = []
            return .tooBig
        }
        if frameEnded {
            messageFrames += 1
            if messageFrames > context.configuration.maxMessageFragments { return .tooManyFragments }
        }
        message.append(contentsOf: bytes)
        guard final else { return .partial }
        defer {
            message = []
            messageFrames = 0
        }
        guard messageIsBinary || UTF8Validation.isValid(message) else { return .invalidText }
        return .message(message, binary: messageIsBinary)
    }

    enum ReceiveResult {
        case partial
        case message([UInt8], binary: Bool)
        case tooBig
        case tooManyFragments
        case invalidText
    }

    /// Drops the message being reassembled and everything the peer sends from now on (the
    /// connection is closing because of what it sent).
    func refuseInput() {
        inputRefused = true
        message = []
    }

    /// Ends this connection's TLS handshake in `TLSIndexGate`, once: it was established or failed.
    func finishTLSHandshake() {
        guard tlsHandshakePending else { return }
        tlsHandshakePending = false
        TLSIndexGate.shared.endHandshake()
    }

    /// Forgets the lws handle once lws reported the close.
    func detach() {
        wsi = nil
        queue.removeAll()
    }
}

/// Checks that bytes are well-formed UTF-8 without building a `String`: text messages and close
/// reasons must be (RFC 6455 §8.1), and lws 4.1's own check misses some cases. Any thread.
enum UTF8Validation {
    static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid:
                continue
            case .emptyInput:
                return true
            case .error:
                return false
            }
        }
    }
}
