import CallGateCore

/// Cluster mode: a node that lost calls to another node lets them go at once. It learns so
/// either from the store, which fenced out its write of a call (a survivor took the call over
/// under a raised epoch while this node was frozen or cut off, or a later run of the same node
/// id took it back), or from its own check when it comes back from a suspension (`reconcile`).
/// It runs them no longer and says nothing more of them: the new owner speaks for them. The
/// output held back for them is dropped, and an answer waiting is replaced by
/// `ERR_CLUSTER_UNAVAILABLE` (`OutputFence`). Service thread only.
extension ClusterFabric {
    /// The store fenced out this node's writes of the calls of `sessions`: lets them go, and
    /// counts them.
    func letGo(fencedOut sessions: Set<String>) {
        letGo(sessions)
        metrics.cluster.callsFencedOut(sessions.count)
        logger.warning(
            "another node owns these calls now: this node's writes of them were fenced out and it let them go",
            metadata: ["calls": "\(sessions.count)"])
    }

    /// Stops running the calls of `sessions`, drops what it held back for them (and the pushes
    /// about them waiting for Redis), and writes the active-call entries of their users again.
    func letGo(_ sessions: Set<String>) {
        pipeline.revoke(sessions)
        if !unsentPushes.isEmpty {
            unsentPushes.removeAll { sessions.contains($0.push.frame.sessionId) }
        }
        let users = Array(core.usersWithActiveCalls)
        send(core.relinquish(Array(sessions)))
        indexActiveCalls(of: users)
    }
}
