import DequeModule
import LWS
import Logging

/// The command connection to Redis: one hiredis connection on the service thread's loop, kept
/// up by `RedisLink`, with what hiredis 0.14 lacks: a reply deadline (a connection whose oldest
/// reply is `replyTimeout` late is dropped, which fails every command waiting on it) and scripts
/// by SHA-1. Commands are never queued while the connection is down: they fail at once with
/// `RedisFailure.notConnected`, so the caller can refuse what needs Redis.
///
/// Service thread only: every handler runs there, in the order the commands were sent.
public final class RedisClient {
    private let link: RedisLink
    private unowned let context: LWSContext
    private let replyTimeout: Duration
    /// When each command waiting for its reply is due, oldest first (replies come in order).
    private var deadlines = Deque<ContinuousClock.Instant>()
    private lazy var replyTimer = context.makeTimer { [unowned self] in self.checkDeadlines() }

    /// Called each time the connection is ready (again). Set before `start`.
    public var onReady: () -> Void = {}
    /// The scripts sent whole on this connection since it was last ready: Redis knows them.
    private var scriptsSent: Set<String> = []

    /// Called when the ready connection went down, with why; its waiting commands were failed.
    public var onDown: (String) -> Void {
        get { link.wentDown }
        set { link.wentDown = newValue }
    }

    /// Makes a client named `name` (what `CLIENT LIST` shows); nothing connects until `start`.
    public init(
        endpoint: RedisEndpoint, name: String, context: LWSContext, logger: Logger,
        connectTimeout: Duration = .seconds(2), replyTimeout: Duration = .seconds(2)
    ) {
        link = RedisLink(endpoint: endpoint, name: name, context: context, logger: logger, connectTimeout: connectTimeout)
        self.context = context
        self.replyTimeout = replyTimeout
    }

    /// Whether commands can be sent now.
    public var isReady: Bool { link.phase == .ready }

    /// Why the connection is not ready; nil when it is.
    public var lastError: String? { link.lastError }

    /// Starts connecting; the connection then comes back by itself whenever it drops, until
    /// `close` or the context's shutdown.
    public func start() {
        link.becameReady = { [unowned self] in
            scriptsSent.removeAll()
            onReady()
        }
        link.start()
    }

    /// Closes the connection for good; waiting commands fail with `.lost`.
    public func close() {
        link.close()
        replyTimer.cancel()
    }

    /// Drops the connection and reconnects (a probe found it dead).
    public func reconnect(because reason: String) {
        link.drop(reason)
    }

    /// Commands this connection refuses: they answer more than once, which hiredis routes past
    /// the one-shot reply handlers (subscriptions have `RedisSubscriber`).
    static let refused: Set<String> = ["SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "MONITOR"]

    /// Sends `arguments` (a command and its arguments, binary-safe); `handler` gets the reply.
    /// An empty command, or one of `refused`, fails at once with `.notConnected`.
    public func send(_ arguments: [[UInt8]], then handler: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        guard let name = arguments.first, !Self.refused.contains(String(decoding: name, as: UTF8.self).uppercased()) else {
            handler(.failure(.notConnected("not a command this connection sends")))
            return
        }
        guard link.phase == .ready else {
            handler(.failure(.notConnected(link.lastError ?? "connecting")))
            return
        }
        let sent = link.send(arguments) { [weak self] reply in
            _ = self?.deadlines.popFirst()
            guard let reply else {
                handler(.failure(.lost(self?.link.lastError ?? "connection closed")))
                return
            }
            handler(.success(reply))
        }
        guard sent else {
            handler(.failure(.notConnected(link.lastError ?? "connection closing")))
            return
        }
        if deadlines.isEmpty {
            replyTimer.schedule(afterMicroseconds: replyTimeout.microseconds)
        }
        deadlines.append(.now + replyTimeout)
    }

    /// `send` for text arguments.
    public func send(_ arguments: [String], then handler: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        send(arguments.map { Array($0.utf8) }, then: handler)
    }

    /// Runs `script`: whole (`EVAL`) the first time on each connection, which makes Redis keep
    /// it, then by SHA-1 (`EVALSHA`). Sending it whole first keeps commands in the order they
    /// were sent: an `EVALSHA` Redis does not know would run again only after what followed it.
    /// Should Redis forget it all the same (`SCRIPT FLUSH`), it is sent whole once more.
    public func run(
        _ script: RedisScript, keys: [String], arguments: [[UInt8]],
        then handler: @escaping (Result<RedisReply, RedisFailure>) -> Void
    ) {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        guard isReady, scriptsSent.contains(script.sha1) else {
            if isReady {
                scriptsSent.insert(script.sha1)
            }
            send([Array("EVAL".utf8), Array(script.source.utf8)] + tail, then: handler)
            return
        }
        send([Array("EVALSHA".utf8), Array(script.sha1.utf8)] + tail) { [weak self] result in
            guard case .success(.error(let message)) = result, message.hasPrefix("NOSCRIPT"), let self else {
                handler(result)
                return
            }
            self.send([Array("EVAL".utf8), Array(script.source.utf8)] + tail, then: handler)
        }
    }

    /// Drops the connection when its oldest reply is late; else waits for the next deadline.
    private func checkDeadlines() {
        guard let oldest = deadlines.first else { return }
        let now = ContinuousClock.now
        if oldest <= now {
            deadlines.removeAll()
            link.drop("no reply within \(replyTimeout)")
            return
        }
        replyTimer.schedule(afterMicroseconds: (oldest - now).microseconds)
    }
}
