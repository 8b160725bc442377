import Foundation
import LWS
import Logging

/// This node's side of the cluster's pub/sub: its own channel (ops forwarded to it, their
/// answers, departures, its probes) and the channel of every user with a device here, on the
/// subscription connection; publishes go over the command connection. Every message is sealed
/// with the cluster secret (`BusSignature`) for its channel; one whose seal fails, or that was
/// heard before (`SeenSeals`), is dropped and counted (`onRejected`), never acted on.
///
/// The subscription's liveness is checked end to end: every `probeInterval` the node publishes
/// a probe on its own channel, and when none came back for `probeTimeout` (a connection that is
/// open but no longer delivers) the subscription is dropped and made again. Service thread only.
public final class ClusterBus {
    /// How the probes are timed.
    public struct Timing: Sendable {
        /// How often a probe is published.
        public var probeInterval: Duration = .seconds(1)
        /// How long without a probe back before the subscription is made again.
        public var probeTimeout: Duration = .seconds(3)

        public init() {}
    }

    public let nodeID: String
    /// This node's channel.
    public let channel: String
    /// Seals what this node publishes and checks what it hears.
    public let signature: BusSignature
    /// The messages heard within the seals' age bound, so that none is acted on twice.
    private var seen: SeenSeals
    private let client: RedisClient
    private let subscriber: RedisSubscriber
    private unowned let context: LWSContext
    private let timing: Timing
    private let logger: Logger
    /// Channel -> what runs once Redis confirmed its subscription.
    private var waiting: [String: [() -> Void]] = [:]
    /// When the node's channel last delivered something, or was (re)subscribed.
    public private(set) var lastHeard = ContinuousClock.now
    private lazy var probeTimer = context.makeTimer { [unowned self] in self.probe() }

    /// A message on the channel of user `uid`.
    public var onUserMessage: (_ uid: String, ClusterMessage) -> Void = { _, _ in }
    /// Redis confirmed the subscription to the channel of user `uid` (first, or again after the
    /// subscription was down: pushes published meanwhile were missed).
    public var onUserChannelConfirmed: (_ uid: String) -> Void = { _ in }
    /// Another node changed group `guid`.
    public var onGroupChanged: (_ guid: String) -> Void = { _ in }
    /// Another node changed the webhook endpoints.
    public var onWebhooksChanged: () -> Void = {}
    /// A message on this node's channel (probes are not passed on).
    public var onNodeMessage: (ClusterMessage) -> Void = { _ in }
    /// The node's channel is subscribed (again), or no longer is.
    public var onReadyChanged: (Bool) -> Void = { _ in }
    /// A message was dropped: its seal failed, or it did not parse (nil).
    public var onRejected: (BusSignature.Rejection?) -> Void = { _ in }
    /// When a dropped message was last logged: a flood of them logs a line per 10 s.
    private var lastRejectionLogged: ContinuousClock.Instant?

    /// The bus of `nodeID`, publishing through `client` (which its owner starts) and subscribing
    /// on a connection of its own to `endpoint`, sealing and checking messages with `signature`.
    public init(
        nodeID: String, client: RedisClient, endpoint: RedisEndpoint, signature: BusSignature, context: LWSContext,
        timing: Timing = Timing(), logger: Logger
    ) {
        self.nodeID = nodeID
        channel = ClusterKeys.nodeChannel(nodeID)
        self.signature = signature
        seen = SeenSeals(maxAge: signature.maxAge)
        self.client = client
        self.context = context
        self.timing = timing
        self.logger = logger
        subscriber = RedisSubscriber(endpoint: endpoint, name: "callgate:\(nodeID):bus", context: context, logger: logger)
        subscriber.onMessage = { [unowned self] channel, payload in self.received(payload, on: channel) }
        subscriber.onConfirmed = { [unowned self] channel in self.confirmed(channel) }
        subscriber.onDown = { [unowned self] reason in
            logger.warning("cluster bus subscription down", metadata: ["node": "\(nodeID)", "reason": "\(reason)"])
            self.onReadyChanged(false)
        }
    }

    /// Subscribes to this node's channel and starts the probes.
    public func start() {
        subscriber.subscribe(channel)
        subscriber.subscribe(ClusterKeys.groupsChannel)
        subscriber.subscribe(ClusterKeys.webhooksChannel)
        subscriber.start()
        probeTimer.schedule(afterMicroseconds: timing.probeInterval.microseconds)
    }

    /// Whether this node's channel is subscribed: only then can ops be forwarded to it.
    public var isReady: Bool {
        subscriber.confirmed.contains(channel)
    }

    /// Why the subscription is not ready; nil when it is.
    public var problem: String? {
        isReady ? nil : subscriber.lastError ?? "the subscription to \(channel) is not confirmed yet"
    }

    /// Subscribes to the pushes of `uid` (a device of theirs is here); `ready` runs once Redis
    /// confirmed it, so that nothing published to them from then on is missed.
    public func listen(to uid: String, then ready: @escaping () -> Void) {
        let userChannel = ClusterKeys.userChannel(uid)
        if subscriber.confirmed.contains(userChannel) {
            ready()
            return
        }
        waiting[userChannel, default: []].append(ready)
        subscriber.subscribe(userChannel)
    }

    /// Unsubscribes from the pushes of `uid` (their last device here went), unless a device of
    /// theirs still waits for `listen`.
    public func stopListening(to uid: String) {
        let userChannel = ClusterKeys.userChannel(uid)
        guard waiting[userChannel] == nil else { return }
        subscriber.unsubscribe(userChannel)
    }

    /// Tells every node that group `guid` changed (its change is saved); what fails is lost
    /// (logged): the other nodes reload every group when their subscription comes back.
    public func announceGroupChange(_ guid: String) {
        let message = ClusterMessage.groupChanged(origin: nodeID, guid: guid)
        publish(message, on: ClusterKeys.groupsChannel) { [logger] result in
            if case .failure(let failure) = result {
                logger.warning("group change not announced", metadata: ["guid": "\(guid)", "error": "\(failure)"])
            }
        }
    }

    /// Tells every node that the webhook endpoints changed (the change is saved); what fails is
    /// lost (logged): the other nodes read the endpoints every second anyway.
    public func announceWebhooksChange() {
        publish(.webhooksChanged(origin: nodeID), on: ClusterKeys.webhooksChannel) { [logger] result in
            if case .failure(let failure) = result {
                logger.warning("webhook endpoint change not announced", metadata: ["error": "\(failure)"])
            }
        }
    }

    /// Publishes `message` on the channel of `node`; `done` gets Redis's reply (how many
    /// subscribers it reached: 0 when that node is not listening) or why there was none.
    public func send(
        _ message: ClusterMessage, toNode node: String, then done: @escaping (Result<RedisReply, RedisFailure>) -> Void
    ) {
        publish(message, on: ClusterKeys.nodeChannel(node), then: done)
    }

    /// Publishes `message`, sealed, on `target`.
    private func publish(
        _ message: ClusterMessage, on target: String, then done: @escaping (Result<RedisReply, RedisFailure>) -> Void
    ) {
        client.send([Array("PUBLISH".utf8), Array(target.utf8), signature.seal(message.encoded, on: target)], then: done)
    }

    private func confirmed(_ confirmedChannel: String) {
        if confirmedChannel == channel {
            lastHeard = .now
            logger.info("cluster bus subscribed", metadata: ["node": "\(nodeID)"])
            onReadyChanged(true)
        }
        for ready in waiting.removeValue(forKey: confirmedChannel) ?? [] {
            ready()
        }
        if confirmedChannel.hasPrefix(ClusterKeys.userChannelPrefix) {
            onUserChannelConfirmed(String(confirmedChannel.dropFirst(ClusterKeys.userChannelPrefix.count)))
        }
    }

    private func received(_ payload: [UInt8], on messageChannel: String) {
        let message: ClusterMessage
        switch signature.open(payload, on: messageChannel) {
        case .success(let opened):
            guard seen.insert(opened, now: signature.nowMillis()) else {
                rejected(.replayed, on: messageChannel, bytes: payload.count)
                return
            }
            guard let parsed = ClusterMessage(Array(opened.message)) else {
                rejected(nil, on: messageChannel, bytes: payload.count)
                return
            }
            message = parsed
        case .failure(let rejection):
            rejected(rejection, on: messageChannel, bytes: payload.count)
            return
        }
        if messageChannel == channel {
            lastHeard = .now
            if message != .probe {
                onNodeMessage(message)
            }
        } else if messageChannel == ClusterKeys.groupsChannel {
            if case .groupChanged(let origin, let guid) = message, origin != nodeID {
                onGroupChanged(guid)
            }
        } else if messageChannel == ClusterKeys.webhooksChannel {
            if case .webhooksChanged(let origin) = message, origin != nodeID {
                onWebhooksChanged()
            }
        } else if messageChannel.hasPrefix(ClusterKeys.userChannelPrefix) {
            onUserMessage(String(messageChannel.dropFirst(ClusterKeys.userChannelPrefix.count)), message)
        }
    }

    /// Publishes a probe, and makes the subscription again when the probes stopped coming back.
    private func probe() {
        probeTimer.schedule(afterMicroseconds: timing.probeInterval.microseconds)
        guard client.isReady else { return }
        if isReady, ContinuousClock.now - lastHeard > timing.probeTimeout {
            lastHeard = .now
            subscriber.reconnect(because: "no probe came back for \(timing.probeTimeout)")
            return
        }
        publish(.probe, on: channel) { _ in }
    }

    /// Counts a dropped message, and logs it unless another was logged in the last 10 s.
    private func rejected(_ rejection: BusSignature.Rejection?, on messageChannel: String, bytes: Int) {
        onRejected(rejection)
        let now = ContinuousClock.now
        if let last = lastRejectionLogged, now - last < .seconds(10) { return }
        lastRejectionLogged = now
        logger.warning("cluster message dropped", metadata: [
            "channel": "\(messageChannel)", "bytes": "\(bytes)", "reason": "\(rejection?.rawValue ?? "malformed")",
        ])
    }
}
