import CHiredis
import Foundation
import LWS
import Logging

/// One hiredis connection on the service thread's libev loop, kept up: it connects, logs in
/// (`AUTH`, `SELECT`, `CLIENT SETNAME`), reports when it is ready and when it went down, and
/// connects again with backoff (100 ms doubling to 2 s, plus up to half again of jitter) until
/// `close`. hiredis 0.14
/// neither times out nor reconnects: both are done here.
///
/// Service thread only (`@unchecked Sendable` so that a name resolved elsewhere can be posted
/// back to it). hiredis keeps `self` unretained in the context's `data`, so whoever makes a link
/// keeps it alive and calls `close` (or the context's shutdown does) before letting go.
final class RedisLink: @unchecked Sendable {
    /// Where the link is.
    enum Phase: String {
        /// Waiting to connect (at first, and between attempts).
        case down
        /// Connecting or logging in.
        case connecting
        /// Logged in: commands may be sent.
        case ready
        /// Closed for good.
        case closed
    }

    let endpoint: RedisEndpoint
    /// The name the server lists it under (`CLIENT LIST`).
    let name: String
    private unowned let context: LWSContext
    private let logger: Logger
    /// How long connecting and logging in may take.
    private let connectTimeout: Duration
    private(set) var phase = Phase.down
    /// Why the last attempt or the last connection failed; nil once ready.
    private(set) var lastError: String?
    /// hiredis's context while connecting or connected.
    private var handle: UnsafeMutablePointer<redisAsyncContext>?
    /// Counts connections, so that callbacks of a dropped one are told apart.
    private(set) var generation = 0
    /// The targets of subscription replies, which hiredis holds unretained: kept as long as the
    /// link, so that a connection freed late still finds them.
    private var sinks: [SubscriptionSink] = []
    /// Failed attempts in a row, for the backoff.
    private var failures = 0
    /// Counts connection attempts, so that a name resolved for an attempt given up on is not used.
    private var attempt = 0
    /// Called when the link is ready (again): the owner subscribes, registers, loads scripts.
    var becameReady: () -> Void = {}
    /// Called when a ready link went down, with why; its unanswered commands were failed first.
    var wentDown: (String) -> Void = { _ in }
    private lazy var retryTimer = context.makeTimer { [unowned self] in self.connect() }
    private lazy var connectTimer = context.makeTimer { [unowned self] in
        self.drop("no connection to \(self.endpoint) within \(self.connectTimeout)")
    }

    init(endpoint: RedisEndpoint, name: String, context: LWSContext, logger: Logger, connectTimeout: Duration = .seconds(2)) {
        self.endpoint = endpoint
        self.name = name
        self.context = context
        self.logger = logger
        self.connectTimeout = connectTimeout
    }

    /// A link let go of without `close` frees its connection without hearing from it again.
    /// Inside a hiredis callback that free is deferred until the callback returns, and then calls
    /// the subscription sinks once more: they are kept until the loop's next turn.
    deinit {
        guard let handle else { return }
        handle.pointee.data = nil
        redisAsyncFree(handle)
        let kept = KeptSinks(sinks)
        context.post { kept.release() }
    }

    /// Starts connecting; the link then keeps itself up until `close`.
    func start() {
        context.assertOnServiceThread()
        guard phase == .down, handle == nil else { return }
        context.onShutdown { [weak self] in self?.close() }
        connect()
    }

    /// Closes the connection for good; commands waiting for a reply are failed.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        retryTimer.cancel()
        connectTimer.cancel()
        release()
    }

    /// Drops the connection (a reply came too late, a login failed) and connects again after
    /// the backoff. Its unanswered commands are failed.
    func drop(_ reason: String) {
        guard phase == .connecting || phase == .ready else { return }
        let wasReady = phase == .ready
        let hadError = lastError != nil
        lastError = reason
        release()
        fail(reason, wasReady: wasReady, quiet: hadError)
    }

    /// Sends one command; `handler` gets the reply, or nil when the connection went down first
    /// (the command may then have run or not). Returns false, without calling `handler`, when
    /// there is no connection to send on.
    @discardableResult
    func send(_ arguments: [[UInt8]], _ handler: @escaping (RedisReply?) -> Void) -> Bool {
        guard let handle else { return false }
        let box = Unmanaged.passRetained(ReplyHandler(handler)).toOpaque()
        guard RedisArguments.withArgv(arguments, { redisAsyncCommandArgv(handle, redisReplied, box, $0, $1, $2) }) == REDIS_OK else {
            Unmanaged<ReplyHandler>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// Sends a command whose every reply (a subscription's confirmations and messages) goes to
    /// `sink`. hiredis holds it unretained; the link keeps it for its whole life (see `deinit`).
    func send(_ arguments: [[UInt8]], everyReplyTo sink: SubscriptionSink) -> Bool {
        guard let handle else { return false }
        if !sinks.contains(where: { $0 === sink }) {
            sinks.append(sink)
        }
        let target = Unmanaged.passUnretained(sink).toOpaque()
        return RedisArguments.withArgv(arguments, { redisAsyncCommandArgv(handle, redisPublished, target, $0, $1, $2) }) == REDIS_OK
    }

    private func connect() {
        guard phase == .down else { return }
        phase = .connecting
        if Self.isNumeric(endpoint.host) {
            open(address: endpoint.host)
            return
        }
        // hiredis resolves names with a blocking getaddrinfo: resolve off the service thread.
        let host = endpoint.host
        attempt += 1
        let expected = attempt
        DispatchQueue.global().async { [weak self, context] in
            let address = Self.resolve(host)
            context.post { [weak self] in
                guard let self, self.phase == .connecting, self.attempt == expected, self.handle == nil else { return }
                guard let address else {
                    self.fail("cannot resolve \(host)", wasReady: false)
                    return
                }
                self.open(address: address)
            }
        }
        connectTimer.schedule(afterMicroseconds: connectTimeout.microseconds)
    }

    private func open(address: String) {
        guard let loop = context.libevLoop else {
            phase = .closed
            return
        }
        guard let created = redisAsyncConnect(address, Int32(endpoint.port)) else {
            fail("hiredis could not allocate a connection", wasReady: false)
            return
        }
        if created.pointee.err != 0 {
            let reason = String(cString: created.pointee.errstr)
            redisAsyncFree(created)
            fail("cannot connect to \(endpoint): \(reason)", wasReady: false)
            return
        }
        generation += 1
        handle = created
        created.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        _ = cg_redis_attach(loop, created)
        redisAsyncSetConnectCallback(created, redisConnected)
        redisAsyncSetDisconnectCallback(created, redisDisconnected)
        redisEnableKeepAlive(&created.pointee.c)
        connectTimer.schedule(afterMicroseconds: connectTimeout.microseconds)
        logIn(generation: generation)
    }

    /// Pipelines the login; the link is ready when the last reply is in.
    private func logIn(generation expected: Int) {
        let commands = endpoint.loginCommands + [["CLIENT", "SETNAME", name]]
        var remaining = commands.count
        for command in commands {
            let sent = send(command.map { Array($0.utf8) }) { [weak self] reply in
                guard let self, self.generation == expected, self.phase == .connecting else { return }
                // A proxy or a restricted ACL may refuse CLIENT SETNAME: only a name is lost.
                if case .error(let message) = reply, command[0] != "CLIENT" {
                    self.drop("\(command[0]) refused by \(self.endpoint): \(message)")
                    return
                }
                guard reply != nil else { return }
                remaining -= 1
                if remaining == 0 {
                    self.ready()
                }
            }
            if !sent {
                drop("cannot send \(command[0]) to \(endpoint)")
                return
            }
        }
    }

    private func ready() {
        connectTimer.cancel()
        phase = .ready
        failures = 0
        if lastError != nil {
            logger.info("redis connection is back", metadata: ["redis": "\(endpoint)", "connection": "\(name)"])
        }
        lastError = nil
        becameReady()
    }

    /// hiredis reports a connect attempt's end.
    fileprivate func connected(_ context: UnsafePointer<redisAsyncContext>, status: Int32) {
        guard UnsafePointer(handle) == context, status != REDIS_OK else { return }
        // hiredis frees the context after this callback.
        handle = nil
        fail("cannot connect to \(endpoint): \(Self.error(of: context))", wasReady: false)
    }

    /// hiredis reports that a connection closed (the server went away, or we freed it).
    fileprivate func disconnected(_ context: UnsafePointer<redisAsyncContext>, status: Int32) {
        guard UnsafePointer(handle) == context else { return }
        // hiredis frees the context after this callback.
        handle = nil
        let wasReady = phase == .ready
        fail("connection to \(endpoint) lost: \(Self.error(of: context))", wasReady: wasReady)
    }

    /// Frees the connection, which fails its unanswered commands at once (or, inside a hiredis
    /// callback, as soon as it returns).
    private func release() {
        guard let handle else { return }
        self.handle = nil
        generation += 1
        redisAsyncFree(handle)
    }

    /// Records why the connection is down and schedules the next attempt. Logs the first
    /// failure of a run of them (`quiet`: one already was).
    private func fail(_ reason: String, wasReady: Bool, quiet: Bool? = nil) {
        connectTimer.cancel()
        guard phase != .closed else { return }
        phase = .down
        if !(quiet ?? (lastError != nil)) || wasReady {
            logger.warning("redis connection down", metadata: ["redis": "\(endpoint)", "connection": "\(name)", "reason": "\(reason)"])
        }
        lastError = reason
        failures += 1
        let backoff = min(2_000_000, 100_000 << min(failures - 1, 5))
        retryTimer.schedule(afterMicroseconds: Int64(backoff + Int.random(in: 0...(backoff / 2))))
        if wasReady {
            wentDown(reason)
        }
    }

    /// The error hiredis recorded on the connection (in the connect callback only the inner
    /// context has it yet).
    private static func error(of context: UnsafePointer<redisAsyncContext>) -> String {
        if context.pointee.err != 0, let text = context.pointee.errstr {
            return String(cString: text)
        }
        return context.pointee.c.err != 0 ? context.pointee.c.errorText : "closed"
    }

    private static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first address of `host`, as text; nil when it has none. Blocks.
    private static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(cString: text)
    }
}

/// A one-shot reply handler, retained by hiredis's `privdata` until its callback runs (always
/// exactly once: with the reply, or with nil when the connection is freed).
private final class ReplyHandler {
    let deliver: (RedisReply?) -> Void
    init(_ deliver: @escaping (RedisReply?) -> Void) { self.deliver = deliver }
}

/// Sinks kept alive until a posted closure lets them go (see `RedisLink.deinit`); touched on the
/// service thread only.
private final class KeptSinks: @unchecked Sendable {
    private var sinks: [SubscriptionSink]
    init(_ sinks: [SubscriptionSink]) { self.sinks = sinks }
    func release() { sinks.removeAll() }
}

/// Receives every reply to a subscribing command, many times: confirmations and messages, and
/// nil when the connection is freed.
final class SubscriptionSink {
    let deliver: (RedisReply?) -> Void
    init(_ deliver: @escaping (RedisReply?) -> Void) { self.deliver = deliver }
}

private func redisReplied(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?, _ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    let handler = Unmanaged<ReplyHandler>.fromOpaque(box).takeRetainedValue()
    handler.deliver(reply.map { RedisReply(copying: $0.assumingMemoryBound(to: redisReply.self)) })
}

private func redisPublished(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?, _ target: UnsafeMutableRawPointer?) {
    guard let target else { return }
    Unmanaged<SubscriptionSink>.fromOpaque(target).takeUnretainedValue().deliver(reply.map { RedisReply(copying: $0.assumingMemoryBound(to: redisReply.self)) })
}

private func redisConnected(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    guard let context, let link = context.pointee.data else { return }
    Unmanaged<RedisLink>.fromOpaque(link).takeUnretainedValue().connected(context, status: status)
}

private func redisDisconnected(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    guard let context, let link = context.pointee.data else { return }
    Unmanaged<RedisLink>.fromOpaque(link).takeUnretainedValue().disconnected(context, status: status)
}

extension Duration {
    /// Whole microseconds, for `LoopTimer`.
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
