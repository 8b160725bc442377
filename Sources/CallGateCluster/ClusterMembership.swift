import LWS
import Logging

/// This node's membership of the cluster, kept in Redis: a heartbeat lease renewed every
/// `heartbeatInterval` under the node id, a node number for the whole run, and the view of
/// which nodes are live and which let their lease lapse (died, or lost Redis).
///
/// A node whose heartbeat went unacknowledged for `suspendAfter` is suspended: the others may
/// soon count it dead and take over its calls, so it must stop acting on them until a heartbeat
/// gets through again. Service thread only.
public final class ClusterMembership {
    /// Timing of the heartbeat.
    public struct Timing: Sendable {
        /// How often the lease is renewed.
        public var heartbeatInterval: Duration = .seconds(1)
        /// How long a lease lasts: a node whose heartbeat stopped counts as gone after it.
        public var lease: Duration = .seconds(3)
        /// How long without an acknowledged heartbeat before this node suspends itself; shorter
        /// than `lease`, so that it stops before anyone can count it gone.
        public var suspendAfter: Duration = .milliseconds(1_500)

        public init() {}
    }

    /// Where this node stands.
    public enum State: Equatable, Sendable {
        /// Not yet acknowledged by Redis since the start.
        case joining
        /// Its heartbeat is acknowledged.
        case live
        /// Its heartbeat went unacknowledged for `suspendAfter`, or another process holds its id.
        case suspended(String)
    }

    /// This node's id, unique in the cluster.
    public let nodeID: String
    /// Tells this run apart from an earlier or later process under the same id.
    public let incarnation: String
    public private(set) var state = State.joining
    /// This run's node number (from Redis), once joined.
    public private(set) var number: Int64?
    /// The live nodes, this one included, as of the last heartbeat.
    public private(set) var liveNodes: [String] = []
    /// The nodes in the set whose lease lapsed, as of the last heartbeat.
    public private(set) var lapsedNodes: [String] = []
    /// Called when this node becomes live: at the start, and after each suspension.
    public var onLive: () -> Void = {}
    /// Called when this node is suspended, with why.
    public var onSuspended: (String) -> Void = { _ in }

    private let client: RedisClient
    private unowned let context: LWSContext
    private let timing: Timing
    private let logger: Logger
    private var lastAcknowledged = ContinuousClock.now
    private var beating = false
    private var left = false
    private lazy var heartbeatTimer = context.makeTimer { [unowned self] in self.beat() }

    /// Membership of `nodeID` over `client` (which the caller starts and closes).
    public init(nodeID: String, client: RedisClient, context: LWSContext, timing: Timing = Timing(), logger: Logger) {
        self.nodeID = nodeID
        self.client = client
        self.context = context
        self.timing = timing
        self.logger = logger
        var random = SystemRandomNumberGenerator()
        incarnation = String(random.next(), radix: 36)
    }

    /// Starts the heartbeat; the first one goes out as soon as the client is ready.
    public func start() {
        context.assertOnServiceThread()
        lastAcknowledged = .now
        beat()
    }

    /// Sends a heartbeat at once (the connection to Redis is back) instead of at the next tick.
    public func heartbeatNow() {
        beat()
    }

    /// Leaves the cluster (graceful stop): the heartbeat stops and the node's key and set entry
    /// are deleted, so that nobody waits for its lease to lapse. `done` runs when Redis answered
    /// or could not be reached.
    public func leave(then done: @escaping () -> Void) {
        left = true
        heartbeatTimer.cancel()
        guard let number else {
            done()
            return
        }
        client.run(
            ClusterScripts.leave, keys: [ClusterKeys.node(nodeID), ClusterKeys.nodes],
            arguments: [Array(leaseValue(number).utf8), Array(nodeID.utf8)]
        ) { _ in done() }
    }

    private func leaseValue(_ number: Int64) -> String {
        "\(incarnation)|\(number)"
    }

    /// One heartbeat: renews the lease (taking a node number first, once), then schedules the next.
    private func beat() {
        guard !left else { return }
        heartbeatTimer.schedule(afterMicroseconds: timing.heartbeatInterval.microseconds)
        checkSuspension()
        guard !beating, client.isReady else { return }
        beating = true
        guard let number else {
            client.send(["INCR", ClusterKeys.nodeNumbers]) { [weak self] result in
                guard let self else { return }
                self.beating = false
                if case .success(.integer(let value)) = result {
                    self.number = value
                    self.beat()
                }
            }
            return
        }
        let sentAt = ContinuousClock.now
        client.run(
            ClusterScripts.heartbeat, keys: [ClusterKeys.node(nodeID), ClusterKeys.nodes],
            arguments: [leaseValue(number), String(timing.lease.microseconds / 1000), nodeID, ClusterKeys.nodePrefix].map { Array($0.utf8) }
        ) { [weak self] result in
            guard let self else { return }
            self.beating = false
            self.acknowledged(result, sentAt: sentAt)
        }
    }

    private func acknowledged(_ result: Result<RedisReply, RedisFailure>, sentAt: ContinuousClock.Instant) {
        guard !left else { return }
        switch result {
        case .success(let reply):
            guard let elements = reply.elements, let status = elements.first?.integer else {
                logger.error("unexpected heartbeat reply from Redis", metadata: ["reply": "\(reply)"])
                return
            }
            if status == 0 {
                suspend("node id \(nodeID) is held by another live process (\(elements.dropFirst().first?.text ?? "?"))")
                return
            }
            liveNodes = (elements.dropFirst().first?.elements ?? []).compactMap(\.text).sorted()
            lapsedNodes = (elements.dropFirst(2).first?.elements ?? []).compactMap(\.text).sorted()
            lastAcknowledged = sentAt
            if state != .live {
                state = .live
                logger.info("cluster node live", metadata: ["node": "\(nodeID)", "number": "\(number ?? 0)", "nodes": "\(liveNodes)"])
                onLive()
            }
        case .failure(let failure):
            logger.debug("heartbeat failed", metadata: ["node": "\(nodeID)", "error": "\(failure)"])
            checkSuspension()
        }
    }

    /// Suspends the node once its last acknowledged heartbeat is `suspendAfter` old.
    private func checkSuspension() {
        guard state == .live, ContinuousClock.now - lastAcknowledged >= timing.suspendAfter else { return }
        suspend("no heartbeat acknowledged by Redis for \(timing.suspendAfter) (\(client.lastError ?? "no reply"))")
    }

    private func suspend(_ reason: String) {
        if case .suspended(let current) = state, current == reason { return }
        state = .suspended(reason)
        logger.warning("cluster node suspended", metadata: ["node": "\(nodeID)", "reason": "\(reason)"])
        onSuspended(reason)
    }
}
