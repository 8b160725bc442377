import CLibWebSockets
import Foundation
import Synchronization

/// One libwebsockets context on its own service thread, running on a libev event loop it owns.
///
/// The service thread owns every connection, timer and lws call of this context. Other threads
/// talk to it only through `post`, which queues work in the mailbox and wakes the loop with
/// `lws_cancel_service`, the one lws call that is safe from any thread.
public final class LWSContext: @unchecked Sendable {
    /// The settings this context was started with.
    public let configuration: ContextConfiguration
    /// The TCP port a server context listens on (the real one when 0 was asked for); 0 for a client context.
    public private(set) var port = 0

    var lwsContext: OpaquePointer?
    /// The libev loop this context runs on: ours ("foreign" to lws), so lws installs no signal
    /// handlers and several contexts can live in one process.
    private(set) var eventLoop: OpaquePointer?
    /// Work that must end before the loop can: run first when a shutdown begins (see `onShutdown`).
    private var shutdownHooks: [() -> Void] = []
    var webSocketDelegate: (any WebSocketDelegate)?
    var httpHandler: (any HTTPHandler)?
    private(set) var protocolNamePointer: UnsafeMutablePointer<CChar>
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let mailbox = Mailbox()
    private var timers: [WeakTimer] = []
    /// Every open WebSocket of this context, so a shutdown can close them all.
    var liveConnections: [UInt64: WebSocketConnection] = [:]
    /// Every accepted TCP connection not yet destroyed, when the delegate is a `ConnectionFilter`.
    var acceptedConnections: [OpaquePointer: AcceptedConnection] = [:]
    /// Pings quiet server connections and drops dead ones; made on the first server connection.
    var liveness: LivenessMonitor?
    private var nextConnectionID: UInt64 = 0
    /// Set when a shutdown begins: new connections are refused from then on.
    private(set) var stopping = false
    private var destroyStarted = false
    /// The context `post` may wake, guarded so that no wake-up reaches a destroyed context.
    nonisolated(unsafe) private var wakeTarget: OpaquePointer?
    private let wakeLock = NSLock()
    /// lws's retry and idle policy, all zero: no per-connection validity ping timers. lws 4.1
    /// keeps those in one sorted list, so with them every connect walks a list as long as the
    /// number of open sockets. Liveness at scale is the layer above's job.
    let idlePolicy: UnsafeMutablePointer<lws_retry_bo_t>
    /// Breaks the event loop when a shutdown's grace period is over.
    private let stopTimer: UnsafeMutablePointer<ev_timer>
    private var serviceThread: pthread_t?
    private let finished = DispatchSemaphore(value: 0)
    private let running = Mutex(false)
    /// C strings of the TLS set-up that lws points at for the context's whole life.
    private let tlsStrings = CStringBag()

    /// libwebsockets keeps process-wide state (event-lib plugins, OpenSSL set-up) that it
    /// touches without locks while a context is created or destroyed: one at a time.
    static let lifecycleLock = NSRecursiveLock()

    private struct WeakTimer {
        weak var timer: LoopTimer?
    }

    /// Prepares a context; nothing runs until `start`.
    public init(configuration: ContextConfiguration) {
        self.configuration = configuration
        nextConnectionID = configuration.connectionIDBase
        protocolNamePointer = strdup(configuration.protocolName)
        protocols = .allocate(capacity: 2)
        cg_zero(protocols, MemoryLayout<lws_protocols>.stride * 2)
        protocols[0].name = UnsafePointer(protocolNamePointer)
        protocols[0].callback = lwsCallback
        protocols[0].rx_buffer_size = configuration.rxBufferSize
        protocols[0].tx_packet_size = configuration.maxWriteBytes
        idlePolicy = .allocate(capacity: 1)
        cg_zero(idlePolicy, MemoryLayout<lws_retry_bo_t>.size)
        stopTimer = .allocate(capacity: 1)
        cg_zero(stopTimer, MemoryLayout<ev_timer>.size)
        cg_ev_timer_init(stopTimer, { loop, _, _ in ev_break(loop, Int32(EVBREAK_ALL)) }, nil)
    }

    /// Creates the lws context on a new service thread and returns once it listens (server) or
    /// is ready (client). Call once.
    ///
    /// The delegates are called on the service thread; the context keeps them until `stop`.
    public func start(webSocketDelegate: any WebSocketDelegate, httpHandler: (any HTTPHandler)? = nil) throws {
        self.webSocketDelegate = webSocketDelegate
        self.httpHandler = httpHandler
        lws_set_log_level(Int32(LLL_ERR), nil)
        let started = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var startError: LWSError?
        let unmanagedSelf = Unmanaged.passUnretained(self)
        let name = configuration.listen == nil ? "lws-client" : "lws-server"
        let thread = Thread {
            ThreadName.set(name)
            let context = unmanagedSelf.takeUnretainedValue()
            startError = context.createContext()
            started.signal()
            if startError == nil {
                context.serviceLoop()
            } else {
                context.finished.signal()
            }
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
        started.wait()
        if let startError {
            self.webSocketDelegate = nil
            self.httpHandler = nil
            throw startError
        }
        running.withLock { $0 = true }
    }

    deinit {
        releaseResources()
    }

    /// Runs `work` on the service thread soon. Safe from any thread, including the service thread.
    public func post(_ work: @escaping @Sendable () -> Void) {
        guard mailbox.post(work) else { return }
        wakeLock.withLock {
            if let wakeTarget {
                lws_cancel_service(wakeTarget)
            }
        }
    }

    /// Ends the service thread and returns when it is gone. Call from any thread but the service thread.
    ///
    /// With `closeCode`, every open WebSocket is first closed with that code and `closeReason`
    /// (after the frames already queued to it), and the context waits up to `grace` for the
    /// peers to acknowledge; whatever is still open then is dropped.
    public func stop(closeCode: UInt16? = nil, closeReason: String = "", grace: Duration = .seconds(2)) {
        precondition(!isServiceThread, "LWSContext.stop() would wait for itself on the service thread")
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        post { [unowned self] in self.beginShutdown(closeCode: closeCode, reason: closeReason, grace: grace) }
        finished.wait()
    }

    /// Whether the caller runs on this context's service thread.
    public var isServiceThread: Bool {
        guard let serviceThread else { return false }
        return pthread_equal(serviceThread, pthread_self()) != 0
    }

    /// Stops a debug build unless the caller runs on this context's service thread, as SwiftNIO's
    /// `preconditionInEventLoop` does; compiled out of release builds. Every entry that touches
    /// service-thread state calls it, so a test that reaches one from another thread fails loudly.
    @inline(__always)
    public func assertOnServiceThread(file: StaticString = #fileID, line: UInt = #line) {
        assert(isServiceThread, "not on the service thread of this LWSContext", file: file, line: line)
    }

    /// A timer whose `fire` runs on the service thread. Service thread only.
    public func makeTimer(_ fire: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(context: self, fire: fire)
        if stopping {
            timer.invalidate()
            return timer
        }
        timers.removeAll { $0.timer == nil }
        timers.append(WeakTimer(timer: timer))
        return timer
    }

    /// The libev loop of the service thread, for other clients of that loop (hiredis's libev
    /// adapter); nil before `start` and once the context is gone. Service thread only.
    public var libevLoop: OpaquePointer? {
        assertOnServiceThread()
        return acceptsWrites ? eventLoop : nil
    }

    /// Runs `hook` on the service thread when a shutdown begins, before lws closes its sockets:
    /// whoever watches file descriptors on `libevLoop` must stop watching there, or the loop
    /// would never run dry and the service thread never end. Runs at once when the shutdown
    /// already began. Service thread only.
    public func onShutdown(_ hook: @escaping () -> Void) {
        assertOnServiceThread()
        if stopping {
            hook()
        } else {
            shutdownHooks.append(hook)
        }
    }

    /// Whether sockets may still ask for writes. False once lws's destroy began closing every
    /// socket: their event-loop handles are gone, so a write request would touch freed memory.
    var acceptsWrites: Bool {
        lwsContext != nil && !destroyStarted
    }

    func makeConnectionID() -> UInt64 {
        nextConnectionID += 1
        return nextConnectionID
    }

    /// Runs the posted work; service thread, from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
    func drainMailbox() {
        mailbox.drain()
    }

    private func createContext() -> LWSError? {
        serviceThread = pthread_self()
        var info = lws_context_creation_info()
        cg_zero(&info, MemoryLayout<lws_context_creation_info>.size)
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = UInt64(LWS_SERVER_OPTION_LIBEV)
        info.timeout_secs = 10
        info.retry_and_idle_policy = UnsafePointer(idlePolicy)
        if let keepalive = configuration.tcpKeepalive {
            info.ka_time = Int32(keepalive.idleSeconds)
            info.ka_interval = Int32(keepalive.intervalSeconds)
            info.ka_probes = Int32(keepalive.probes)
        }
        applyTLS(to: &info, keeping: tlsStrings)
        let usesTLS = configuration.tls != nil || configuration.clientTLS != nil
        let host = configuration.listen.map { strdup($0.host) } ?? nil
        defer { free(host) }
        if let listen = configuration.listen {
            info.port = Int32(listen.port)
            info.iface = UnsafePointer(host)
            if !listen.host.contains(":") {
                info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
            }
        } else {
            info.port = CONTEXT_PORT_NO_LISTEN
        }
        guard let loop = ev_loop_new(UInt32(EVFLAG_AUTO)) else {
            return .contextCreationFailed("cannot create the libev event loop")
        }
        var foreignLoops: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(loop)]
        let created = foreignLoops.withUnsafeMutableBufferPointer { loops in
            info.foreign_loops = loops.baseAddress
            guard usesTLS else { return Self.lifecycleLock.withLock { lws_create_context(&info) } }
            return TLSIndexGate.shared.creatingContext { Self.lifecycleLock.withLock { lws_create_context(&info) } }
        }
        guard let created else {
            ev_loop_destroy(loop)
            let address = configuration.listen.map { "\($0.host):\($0.port)" } ?? "client"
            let hint = configuration.tls == nil ? "" : " (or the TLS certificate or key could not be loaded)"
            return .contextCreationFailed("lws_create_context failed for \(address)\(hint)")
        }
        eventLoop = loop
        lwsContext = created
        wakeLock.withLock { wakeTarget = created }
        if configuration.listen != nil, let vhost = lws_get_vhost_by_name(created, "default") {
            port = Int(lws_get_vhost_listen_port(vhost))
        }
        return nil
    }

    /// The service thread's life: run the event loop until `stop` breaks it, then destroy the
    /// lws context outside any callback and let the loop finish the closes it started.
    private func serviceLoop() {
        guard let lwsContext, let eventLoop else { return }
        ev_run(eventLoop, 0)
        destroyStarted = true
        cg_ev_timer_stop(eventLoop, stopTimer)
        invalidateTimers()
        wakeLock.withLock { wakeTarget = nil }
        Self.lifecycleLock.withLock { lws_context_destroy(lwsContext) }
        ev_run(eventLoop, 0)
        ev_loop_destroy(eventLoop)
        self.lwsContext = nil
        self.eventLoop = nil
        webSocketDelegate = nil
        httpHandler = nil
        finished.signal()
    }

    /// Service thread: stops timers, closes the sockets if asked, then destroys the context.
    private func beginShutdown(closeCode: UInt16?, reason: String, grace: Duration) {
        guard !stopping, lwsContext != nil else { return }
        stopping = true
        let hooks = shutdownHooks
        shutdownHooks.removeAll()
        for hook in hooks {
            hook()
        }
        invalidateTimers()
        guard let closeCode, !liveConnections.isEmpty else {
            scheduleDestroy(afterMicroseconds: 1)
            return
        }
        for connection in liveConnections.values {
            connection.close(code: closeCode, reason: reason)
        }
        let (seconds, attoseconds) = grace.components
        scheduleDestroy(afterMicroseconds: max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    /// Service thread: forgets a closed socket; the last one to close ends a shutdown's grace period.
    func forget(_ connection: WebSocketConnection) {
        liveConnections[connection.id] = nil
        if stopping && liveConnections.isEmpty {
            scheduleDestroy(afterMicroseconds: 1)
        }
    }

    /// Ends the event loop after `microseconds` (a shutdown's grace period); `serviceLoop`
    /// then destroys the context.
    private func scheduleDestroy(afterMicroseconds microseconds: Int64) {
        guard let eventLoop, !destroyStarted else { return }
        cg_ev_timer_arm(eventLoop, stopTimer, Double(microseconds) / 1_000_000)
    }

    private func invalidateTimers() {
        for entry in timers {
            entry.timer?.invalidate()
        }
        timers.removeAll()
    }

    private func releaseResources() {
        free(protocolNamePointer)
        protocols.deallocate()
        idlePolicy.deallocate()
        stopTimer.deallocate()
    }
}
