import CLibWebSockets
import Foundation
import Synchronization

/// One libwebsockets context on its own service thread, with the libuv event loop.
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
    var webSocketDelegate: (any WebSocketDelegate)?
    var httpHandler: (any HTTPHandler)?
    private(set) var protocolNamePointer: UnsafeMutablePointer<CChar>
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let mailbox = Mailbox()
    private var timers: [WeakTimer] = []
    private var nextConnectionID: UInt64 = 0
    private var stopping = false
    private var stopNode: UnsafeMutablePointer<cg_timer>
    private var serviceThread: pthread_t?
    private let finished = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    private struct WeakTimer {
        weak var timer: LoopTimer?
    }

    /// Prepares a context; nothing runs until `start`.
    public init(configuration: ContextConfiguration) {
        self.configuration = configuration
        protocolNamePointer = strdup(configuration.protocolName)
        protocols = .allocate(capacity: 2)
        cg_zero(protocols, MemoryLayout<lws_protocols>.stride * 2)
        protocols[0].name = UnsafePointer(protocolNamePointer)
        protocols[0].callback = lwsCallback
        protocols[0].rx_buffer_size = configuration.rxBufferSize
        stopNode = .allocate(capacity: 1)
        cg_zero(stopNode, MemoryLayout<cg_timer>.size)
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
        let thread = Thread {
            let context = unmanagedSelf.takeUnretainedValue()
            startError = context.createContext()
            started.signal()
            if startError == nil {
                context.serviceLoop()
            } else {
                context.finished.signal()
            }
        }
        thread.name = configuration.listen == nil ? "lws-client" : "lws-server"
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
        if mailbox.post(work), let lwsContext {
            lws_cancel_service(lwsContext)
        }
    }

    /// Closes every socket and ends the service thread; returns when it is gone.
    /// Call from any thread but the service thread.
    public func stop() {
        precondition(!isServiceThread, "LWSContext.stop() would wait for itself on the service thread")
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        post { [unowned self] in self.beginShutdown() }
        finished.wait()
    }

    /// Whether the caller runs on this context's service thread.
    public var isServiceThread: Bool {
        guard let serviceThread else { return false }
        return pthread_equal(serviceThread, pthread_self()) != 0
    }

    /// A timer whose `fire` runs on the service thread. Service thread only.
    public func makeTimer(_ fire: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(context: self, fire: fire)
        timers.removeAll { $0.timer == nil }
        timers.append(WeakTimer(timer: timer))
        return timer
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
        info.options = UInt64(LWS_SERVER_OPTION_LIBUV) | UInt64(LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN)
        info.signal_cb = { _, signal in SignalRelay.deliver(signal) }
        info.timeout_secs = 10
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
        guard let created = lws_create_context(&info) else {
            let address = configuration.listen.map { "\($0.host):\($0.port)" } ?? "client"
            return .contextCreationFailed("lws_create_context failed for \(address)")
        }
        lwsContext = created
        if configuration.listen != nil, let vhost = lws_get_vhost_by_name(created, "default") {
            port = Int(lws_get_vhost_listen_port(vhost))
        }
        return nil
    }

    private func serviceLoop() {
        guard let lwsContext else { return }
        while !stopping && lws_service(lwsContext, 0) == 0 {}
        if !stopping {
            invalidateTimers()
        }
        lws_context_destroy(lwsContext)
        self.lwsContext = nil
        webSocketDelegate = nil
        httpHandler = nil
        finished.signal()
    }

    /// Service thread: stops timers, then starts lws's destroy from a loop callback so the loop exits.
    private func beginShutdown() {
        guard !stopping, let lwsContext else { return }
        stopping = true
        invalidateTimers()
        stopNode.pointee.owner = UnsafeMutableRawPointer(lwsContext)
        let sul = UnsafeMutableRawPointer(stopNode).assumingMemoryBound(to: lws_sorted_usec_list_t.self)
        lws_sul_schedule(lwsContext, 0, sul, { sul in
            guard let sul else { return }
            let node = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: cg_timer.self)
            guard let owner = node.pointee.owner else { return }
            lws_context_destroy(OpaquePointer(owner))
        }, 1)
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
        stopNode.deallocate()
    }
}
