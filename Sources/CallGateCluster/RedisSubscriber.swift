import LWS
import Logging

/// The subscription connection to Redis: keeps the channels it is asked for subscribed across
/// reconnects, and hands every message to `onMessage`.
///
/// hiredis 0.14 cannot PING a subscribed connection (the pong is taken for a message and its
/// callback is never shifted off), so this connection's liveness is its owner's: publish probes
/// on a subscribed channel and call `reconnect` when they stop arriving.
///
/// Service thread only.
public final class RedisSubscriber {
    /// Most channels per SUBSCRIBE command when a reconnect subscribes them all again.
    static let batchSize = 1000

    private let link: RedisLink
    private let logger: Logger
    /// Every channel asked for, subscribed or not.
    public private(set) var channels: Set<String> = []
    /// The channels Redis confirmed on the current connection.
    public private(set) var confirmed: Set<String> = []
    /// hiredis's target for every subscription reply; kept until the link is closed.
    private var sink: SubscriptionSink?

    /// Called with each message's channel and payload.
    public var onMessage: (String, [UInt8]) -> Void = { _, _ in }
    /// Called when Redis confirms a subscription, on every connection: from then on, nothing
    /// published on the channel is missed until the next `onDown`.
    public var onConfirmed: (String) -> Void = { _ in }
    /// Called when the connection went down (messages published from now until the next
    /// confirmations are lost), with why.
    public var onDown: (String) -> Void = { _ in }

    public init(endpoint: RedisEndpoint, name: String, context: LWSContext, logger: Logger, connectTimeout: Duration = .seconds(2)) {
        link = RedisLink(endpoint: endpoint, name: name, context: context, logger: logger, connectTimeout: connectTimeout)
        self.logger = logger
        sink = nil
        sink = SubscriptionSink { [weak self] reply in self?.received(reply) }
        link.becameReady = { [unowned self] in self.subscribeAll() }
        link.wentDown = { [unowned self] reason in
            self.confirmed.removeAll()
            self.onDown(reason)
        }
    }

    /// Whether the connection is up (its subscriptions may still be on their way).
    public var isReady: Bool { link.phase == .ready }

    /// Why the connection is not ready; nil when it is.
    public var lastError: String? { link.lastError }

    /// Starts connecting; it comes back by itself, until `close` or the context's shutdown.
    public func start() {
        link.start()
    }

    /// Closes the connection for good.
    public func close() {
        link.close()
        confirmed.removeAll()
    }

    /// Drops the connection and connects again (its probes stopped arriving).
    public func reconnect(because reason: String) {
        guard link.phase == .ready || link.phase == .connecting else { return }
        let wasReady = link.phase == .ready
        confirmed.removeAll()
        link.drop(reason)
        if !wasReady {
            onDown(reason)
        }
    }

    /// Subscribes to `channel` now if connected, and on every reconnect.
    public func subscribe(_ channel: String) {
        guard channels.insert(channel).inserted, link.phase == .ready else { return }
        send(["SUBSCRIBE", channel])
    }

    /// Stops the subscription to `channel`. Messages already on their way may still arrive.
    public func unsubscribe(_ channel: String) {
        guard channels.remove(channel) != nil else { return }
        confirmed.remove(channel)
        guard link.phase == .ready else { return }
        send(["UNSUBSCRIBE", channel])
    }

    private func subscribeAll() {
        let all = Array(channels)
        var start = 0
        while start < all.count {
            let end = min(all.count, start + Self.batchSize)
            send(["SUBSCRIBE"] + all[start..<end])
            start = end
        }
    }

    /// Sends a (UN)SUBSCRIBE. A SUBSCRIBE that cannot be sent drops the connection, whose next
    /// one subscribes everything; an UNSUBSCRIBE that cannot be sent is moot (messages for
    /// channels not asked for are dropped here).
    private func send(_ command: [String]) {
        guard let sink, !link.send(command.map { Array($0.utf8) }, everyReplyTo: sink), command[0] == "SUBSCRIBE" else {
            return
        }
        link.drop("cannot send SUBSCRIBE")
    }

    /// One reply of the subscription: `[message, channel, payload]`, `[subscribe, channel, count]`
    /// or `[unsubscribe, channel, count]`; nil when the connection was freed.
    private func received(_ reply: RedisReply?) {
        guard let elements = reply?.elements, elements.count == 3, let kind = elements[0].text,
              let channel = elements[1].text else { return }
        switch kind {
        case "message":
            guard case .bulk(let payload) = elements[2], channels.contains(channel) else { return }
            onMessage(channel, payload)
        case "subscribe":
            guard channels.contains(channel), confirmed.insert(channel).inserted else { return }
            onConfirmed(channel)
        default:
            return
        }
    }
}
