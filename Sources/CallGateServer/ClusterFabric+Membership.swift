import CallGateCluster
import CallGateCore
import Foundation
import Synchronization

/// Cluster mode: joining the cluster at start, leaving it at stop, and what readiness says
/// about it. Service thread, but for `join` and `leave` (any thread but it).
extension ClusterFabric {
    /// Why a node could not join.
    struct ClusterJoinFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts this node's membership and bus (`cluster`, made before the context started) and
    /// returns once Redis acknowledged its heartbeat and confirmed its channel; throws after
    /// `joinTimeout` without.
    func join(_ configuration: ClusterConfiguration) async throws {
        let outcome = Mutex<CheckedContinuation<Void, any Error>?>(nil)
        let finish: @Sendable (Result<Void, any Error>) -> Void = { result in
            outcome.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        try await withCheckedThrowingContinuation { continuation in
            outcome.withLock { $0 = continuation }
            context.post { [self] in
                let node = cluster
                metrics.cluster.clusterLive(false)
                let liveness: () -> Void = { [unowned self, metrics, unowned node] in
                    metrics.cluster.clusterLive(node.isLive)
                    if node.isLive {
                        finish(.success(()))
                        tellLive()
                        if standing.wasSuspended {
                            standing.wasSuspended = false
                            reconcile()
                        } else if !standing.reconciling {
                            service.armCoreTimer(at: core.nextDeadline)
                        }
                    }
                }
                node.membership.onLive = liveness
                node.membership.onSuspended = { [unowned self] _ in
                    standing.wasSuspended = true
                    liveness()
                }
                node.membership.onView = { [unowned self, unowned node] in
                    sawNodes(live: node.membership.liveNodes, lapsed: node.membership.lapsedNodes)
                    takeOver(node.membership.lapsedNodes)
                }
                node.bus.onReadyChanged = { [unowned self] ready in
                    standing.busHeardSince = ready ? clock.monotonicMillis() : nil
                    if !ready {
                        standing.busWasDown = true
                    } else if standing.busWasDown {
                        standing.busWasDown = false
                        reloadGroups()
                    }
                    liveness()
                }
                node.bus.onGroupChanged = { [unowned self] guid in reloadGroup(guid) }
                node.bus.onWebhooksChanged = { [unowned self] in service.webhooks.endpointsChanged() }
                node.bus.onRejected = { [metrics] rejection in metrics.cluster.busMessageRejected(rejection) }
                node.pushes.onRejected = { [metrics] rejection in metrics.cluster.busMessageRejected(rejection) }
                node.onReady = { [unowned self] in registerAgain() }
                node.bus.onNodeMessage = { [unowned self] message in received(message) }
                node.bus.onUserMessage = { [unowned self] uid, message in received(message, forUser: uid) }
                node.bus.onUserChannelConfirmed = { [unowned self] uid in userChannelConfirmed(uid) }
                renewClaims()
                renewLeases()
                let timeout = context.makeTimer { [node] in
                    let reason: String = switch node.membership.state {
                    case .suspended(let why): why
                    default: node.membership.problem
                    }
                    finish(.failure(ClusterJoinFailure(
                        description: "node \(configuration.nodeID) could not join the cluster at \(configuration.redis) within \(configuration.joinTimeout): \(reason)")))
                }
                timeout.schedule(afterMicroseconds: configuration.joinTimeout.wholeMilliseconds * 1000)
                timers.join = timeout
                node.start()
            }
        }
        context.post { [self] in timers.join = nil }
    }

    /// Writes again what this node keeps in Redis, which a Redis restart loses: the pushes that
    /// waited for Redis, the owner record of every call and session it runs, the busy claims
    /// and active-call entries of its calls' users (and of the users whose entry a write missed
    /// while Redis was out of reach: their calls may have ended meanwhile), and the presence and
    /// profile of the users with a device here; and checks (renewing them) the push sequences
    /// of those users (`checkSequences`). Also every `registrationInterval`, so that none of it
    /// lapses (each lives 24 hours) while the call or the device lasts.
    /// A node back from a suspension does so only once it let go of the calls survivors took
    /// over (`reconcile`), so that it never writes itself back as the owner of one.
    func registerAgain() {
        guard !standing.wasSuspended, !standing.reconciling else {
            standing.registerPending = true
            return
        }
        standing.registerPending = false
        timers.registration.schedule(afterMicroseconds: Self.registrationInterval.wholeMilliseconds * 1000)
        checkSequences(of: Set(hub.connections.values.compactMap(\.uid)))
        publishUnsent()
        writeUnwrittenPresence()
        let sessions = core.liveCallIDs.keys
        for sessionId in sessions {
            cluster.owners.record(sessionId) { _ in }
        }
        renewClaims()
        // Claims of this node's earlier run (or of this run, lost by Redis) that no call of its
        // Core engages: the calls died before they were durable; release them.
        cluster.busy.claimedUsers { [self] uids in
            writeClaims(of: uids)
        }
        indexActiveCalls(of: Array(core.usersWithActiveCalls.union(cluster.activeCalls.takeUnwritten())))
        var present = Set<String>()
        for connection in hub.connections.values where connection.isConnected {
            if let user = core.user(of: connection.id), present.insert(user.uid).inserted {
                markPresent(user)
            }
        }
        if !sessions.isEmpty {
            logger.info("call owners written again", metadata: ["calls": "\(sessions.count)"])
        }
    }

    /// Tells every other live node that this run is live (it joined, or came back from a
    /// suspension), so that they count its devices at once (`ClusterMessage.live`).
    func tellLive() {
        let message = ClusterMessage.live(from: cluster.nodeID, run: cluster.membership.incarnation)
        for node in cluster.membership.liveNodes where node != cluster.nodeID {
            cluster.bus.send(message, toNode: node) { _ in }
        }
    }

    /// How often a node writes again what it keeps in Redis.
    static let registrationInterval: Duration = .seconds(3600)

    /// Whether this node may run its calls now (fire their timers, take ops on them): always
    /// outside cluster mode; in cluster mode while it is live and not checking which of its
    /// calls survivors took over. A process that was frozen learns here that it was cut off.
    func mayRunCalls() -> Bool {
        cluster.membership.checkSuspension()
        return cluster.isLive && !standing.reconciling
    }

    /// Back from a suspension, which may have lasted past its lease: lets go of the calls a
    /// survivor took over meanwhile (the database says who owns each, read under this node's
    /// takeover lock so that no takeover is under way during the check), then writes what it
    /// keeps in Redis again and runs its timers. While the lock is held by a survivor it asks
    /// again every 200 ms, and while the database cannot be read every second, running none of
    /// its calls meanwhile.
    func reconcile() {
        guard let shared = store as? any ClusterStore else { return }
        let ids = core.liveCallIDs
        guard !ids.isEmpty else {
            if standing.registerPending {
                registerAgain()
            }
            service.armCoreTimer(at: core.nextDeadline)
            return
        }
        standing.reconciling = true
        let me = cluster.nodeID
        cluster.takeover.lockOwn { [self] locked in
            guard locked else {
                timers.reconcileRetry.schedule(afterMicroseconds: 200_000)
                return
            }
            storeReads.async { [self] in
                let result = Result { try shared.callIDsOwnedElsewhere(than: me, among: Array(ids.values)) }
                context.post { [self] in
                    self.cluster.takeover.unlockOwn()
                    settle(result, of: ids)
                }
            }
        }
    }

    /// Lets go of the calls among `ids` that the check found owned elsewhere, then carries on
    /// as `reconcile` says; asks again in a second when the check failed.
    private func settle(_ result: Result<Set<Int64>, any Error>, of ids: [String: Int64]) {
        standing.reconciling = false
        switch result {
        case .success(let taken) where !taken.isEmpty:
            let lost = Set(ids.filter { taken.contains($0.value) }.map(\.key))
            letGo(lost)
            logger.warning("calls taken over while this node was cut off were let go", metadata: ["calls": "\(lost.count)"])
        case .success:
            break
        case .failure(let error):
            logger.error("cannot check which calls were taken over; trying again in a second", metadata: ["error": "\(error)"])
            standing.reconciling = true
            timers.reconcileRetry.schedule(afterMicroseconds: 1_000_000)
            return
        }
        if standing.registerPending {
            registerAgain()
        }
        service.armCoreTimer(at: core.nextDeadline)
    }

    /// Leaves the cluster so that the others need not wait for this node's lease to lapse;
    /// returns when Redis answered, or after a second.
    func leave() {
        let left = DispatchSemaphore(value: 0)
        context.post { [self] in
            cluster.membership.leave { left.signal() }
        }
        _ = left.wait(timeout: .now() + 1)
    }

    /// Why this node may not serve as a cluster member now; nil when it may.
    func unreadiness() -> String? {
        guard !cluster.isLive else { return nil }
        switch cluster.membership.state {
        case .suspended(let reason):
            return "this node is suspended from the cluster: \(reason)"
        case .live:
            return "this node cannot hear the cluster: \(cluster.bus.problem ?? "its subscription is not confirmed")"
        default:
            return "this node has not joined the cluster yet"
        }
    }
}
