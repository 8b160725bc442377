import CallGateCluster
import CallGateCore
import Foundation

/// Cluster mode: a node that lapses (killed, or stopped: it leaves at once) loses no call. The
/// first survivor to claim it (`NodeTakeover`) moves its open calls to itself in the database,
/// each under a raised epoch (`ClusterStore.takeOverOpenCalls`, one transaction), and runs them
/// from their records (`GatewayCore.adopt`): rings go on until their timeout, callers and
/// participants get their grace periods to come back, on any node. It then says so in Redis:
/// owner records, busy claims and active-call entries become its own, and the nodes holding
/// devices of those users are asked to announce them, which ends their grace periods. The lapsed
/// node's other claims are left to their lease: it may be frozen, not dead, and still run a call
/// it has not written yet.
/// Service thread, but for the database (on `storeReads`).
extension ClusterFabric {
    /// The heartbeat saw these nodes lapsed: takes over those not under way already. A node
    /// back from a suspension takes over nobody until it has let go of what it lost itself
    /// (`reconcile`): a call it took back would meet its own stale copy.
    func takeOver(_ lapsed: [String]) {
        guard let shared = store as? any ClusterStore, !standing.wasSuspended, !standing.reconciling else { return }
        for node in lapsed where node != cluster.nodeID && takeovers.insert(node).inserted {
            cluster.takeover.claim(node) { [self] won in
                guard won else {
                    takeovers.remove(node)
                    return
                }
                let me = cluster.nodeID
                storeReads.async { [self] in
                    let result = Result { try shared.takeOverOpenCalls(of: node, by: me) }
                    context.post { [self] in
                        adopt(result, of: node)
                    }
                }
            }
        }
    }

    /// Runs the calls taken over from `node`, or gives the takeover up when the database could
    /// not be asked.
    private func adopt(_ result: Result<[OwnedCall], any Error>, of node: String) {
        defer { takeovers.remove(node) }
        let owned: [OwnedCall]
        switch result {
        case .success(let calls):
            owned = calls
        case .failure(let error):
            logger.error("cannot take over the calls of a lapsed node", metadata: ["node": "\(node)", "error": "\(error)"])
            cluster.takeover.abandon(node)
            return
        }
        let records = owned.map(\.record)
        let users = Array(Set(records.flatMap { [$0.initiator.uid] + $0.participants.map(\.uid) }))
        for record in records {
            cluster.owners.record(record.sessionId) { _ in }
        }
        cluster.activeCalls.forget(users, of: node)
        let outcome = core.adopt(openCalls: records)
        for uid in users {
            if let engagement = core.engagement(of: uid) {
                cluster.busy.adopt(uid, from: node, in: engagement.sessionId, answered: engagement.answered)
            }
        }
        cluster.busy.release(users, heldBy: node)
        send(outcome)
        indexActiveCalls(of: users)
        for uid in users {
            lookForOtherDevices(of: uid)
        }
        cluster.takeover.finish(node)
        metrics.cluster.callsTakenOver(records.count)
        logger.notice(
            "took over the calls of a lapsed node", metadata: ["node": "\(node)", "calls": "\(records.count)"])
    }
}
