import LWS
import Logging

/// This node's membership of the cluster, kept in Redis: the lease `NodeIDClaim` took at start,
/// renewed every `heartbeatInterval` under the node id with this run's node number, and the
/// view of which nodes are live and which let their lease lapse (died, or lost Redis).
///
/// A node whose heartbeat went unacknowledged for `suspendAfter` (checked at each tick, so
/// within `suspendAfter` plus one interval) is suspended: the others may soon count it dead, so
/// the layers above stop taking work that needs the cluster (today: readiness and new
/// WebSockets) until a heartbeat gets through again. Service thread only.
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
    /// Where this node stands now.
    public private(set) var state = State.joining
    /// This run's node number (from Redis, by `NodeIDClaim`).
    public let number: Int64
    /// The live nodes, this one included, as of the last heartbeat.
    public private(set) var liveNodes: [String] = []
    /// The incarnation of each live node's run, as the last heartbeat saw them.
    public private(set) var liveRuns: [String: String] = [:]
    /// The nodes in the set whose lease lapsed, as of the last heartbeat.
    public private(set) var lapsedNodes: [String] = []
    /// Called when this node becomes live: at the start, and after each suspension.
    public var onLive: () -> Void = {}
    /// Called when this node is suspended, with why.
    public var onSuspended: (String) -> Void = { _ in }
    /// Called after every acknowledged heartbeat, with `liveNodes` and `lapsedNodes` fresh.
    public var onView: () -> Void = {}

    private let client: RedisClient
    private unowned let context: LWSContext
    private let timing: Timing
    private let logger: Logger
    private var lastAcknowledged = ContinuousClock.now
    /// Why the last heartbeat was not acknowledged; nil after one that was.
    private var lastProblem: String?
    private var beating = false
    private var left = false
    private lazy var heartbeatTimer = context.makeTimer { [unowned self] in self.beat() }

    /// Membership of `nodeID`, claimed as `incarnation` with `number`, over `client` (which the
    /// caller starts and closes).
    public init(
        nodeID: String, incarnation: String, number: Int64, client: RedisClient, context: LWSContext,
        timing: Timing = Timing(), logger: Logger
    ) {
        self.nodeID = nodeID
        self.incarnation = incarnation
        self.number = number
        self.client = client
        self.context = context
        self.timing = timing
        self.logger = logger
    }

    /// Bits of a connection id below the node number (`connectionIDBase`).
    public static let connectionIDBits: UInt64 = 44

    /// The connection id base of node `number`: its low 20 bits above 44 bits of socket count,
    /// so that ids are unique across nodes (unless two live nodes' numbers differ by a multiple
    /// of 2^20, a million starts apart) and `id >> 44` names the node that holds the socket.
    public static func connectionIDBase(of number: Int64) -> UInt64 {
        (UInt64(truncatingIfNeeded: number) & ((1 << (64 - connectionIDBits)) - 1)) << connectionIDBits
    }

    /// A new run's incarnation: random, so that two runs never share one.
    public static func newIncarnation() -> String {
        var random = SystemRandomNumberGenerator()
        return String(random.next(), radix: 36)
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

    /// Leaves the cluster (graceful stop): the heartbeat stops and the node's key is deleted, so
    /// that nobody waits for its lease to lapse: the survivors see it lapsed at once, take over
    /// its calls and remove it from the set. `done` runs when Redis answered or could not be
    /// reached.
    public func leave(then done: @escaping () -> Void) {
        left = true
        heartbeatTimer.cancel()
        client.run(ClusterScripts.leave, keys: [ClusterKeys.node(nodeID)], arguments: [Array(leaseValue.utf8)]) { _ in
            done()
        }
    }

    /// What this run's lease holds: `"<incarnation>|<number>"`, as `NodeIDClaim` set it.
    private var leaseValue: String {
        "\(incarnation)|\(number)"
    }

    /// One heartbeat: renews the lease, then schedules the next.
    private func beat() {
        guard !left else { return }
        heartbeatTimer.schedule(afterMicroseconds: timing.heartbeatInterval.microseconds)
        checkSuspension()
        guard !beating, client.isReady else { return }
        beating = true
        let sentAt = ContinuousClock.now
        client.run(
            ClusterScripts.heartbeat, keys: [ClusterKeys.node(nodeID), ClusterKeys.nodes, ClusterKeys.nodeNumbers],
            arguments: [leaseValue, String(timing.lease.microseconds / 1000), nodeID, ClusterKeys.nodePrefix, String(number)]
                .map { Array($0.utf8) }
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
                // An error reply (READONLY on a replica, OOM, scripts disabled) or a stranger.
                let problem = "Redis answered the heartbeat with \(reply)"
                if lastProblem != problem {
                    logger.error("unexpected heartbeat reply from Redis", metadata: ["reply": "\(reply)"])
                }
                lastProblem = problem
                checkSuspension()
                return
            }
            if status == 0 {
                suspend("node id \(nodeID) is held by another live process (\(elements.dropFirst().first?.text ?? "?"))")
                return
            }
            let live = (elements.dropFirst().first?.elements ?? []).compactMap(\.text)
            let runs = (elements.dropFirst(3).first?.elements ?? []).compactMap(\.text)
            liveNodes = live.sorted()
            liveRuns = runs.count == live.count
                ? Dictionary(zip(live, runs.map { String($0.prefix { $0 != "|" }) }), uniquingKeysWith: { first, _ in first })
                : [:]
            lapsedNodes = (elements.dropFirst(2).first?.elements ?? []).compactMap(\.text).sorted()
            lastAcknowledged = sentAt
            lastProblem = nil
            onView()
            if state != .live {
                state = .live
                logger.info("cluster node live", metadata: ["node": "\(nodeID)", "number": "\(number)", "nodes": "\(liveNodes)"])
                onLive()
            }
        case .failure(let failure):
            logger.debug("heartbeat failed", metadata: ["node": "\(nodeID)", "error": "\(failure)"])
            lastProblem = failure.description
            checkSuspension()
        }
    }

    /// Why the node is not acknowledged, as best known.
    public var problem: String {
        lastProblem ?? client.lastError ?? "no reply"
    }

    /// Node `node` says it became live under `run`: its run counts (`liveRuns`) at once, not from
    /// this node's next heartbeat (which reads the runs from Redis again, this one included while
    /// its lease lives). Only a node this one counts live, or does not know (one that joined
    /// since), is taken at its word; a node counted lapsed is left to the takeover.
    public func heard(run: String, of node: String) {
        guard node != nodeID, !lapsedNodes.contains(node) else { return }
        liveRuns[node] = run
    }

    /// Suspends the node once its last acknowledged heartbeat is `suspendAfter` old: called at
    /// every heartbeat, and by the node before it acts for the cluster (a process that was
    /// frozen learns it here before its first timer runs).
    public func checkSuspension() {
        guard state == .live, ContinuousClock.now - lastAcknowledged >= timing.suspendAfter else { return }
        suspend("no heartbeat acknowledged by Redis for \(timing.suspendAfter) (\(problem))")
    }

    private func suspend(_ reason: String) {
        if case .suspended(let current) = state, current == reason { return }
        state = .suspended(reason)
        logger.warning("cluster node suspended", metadata: ["node": "\(nodeID)", "reason": "\(reason)"])
        onSuspended(reason)
    }
}
