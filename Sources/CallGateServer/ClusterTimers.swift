import LWS

/// The cluster fabric's timers, on the service thread's loop: the periodic renewals (leases,
/// busy claims, what the node keeps in Redis) and the retries (departures, reconciling), the
/// forwarded ops' deadline and the join's. Service thread only.
final class ClusterTimers {
    /// Sends the departures that did not reach their node again.
    let departureRetry: LoopTimer
    /// Renews the leases of this node's devices run by others, and judges those of others.
    let lease: LoopTimer
    /// Asks the database again when `reconcile` could not.
    let reconcileRetry: LoopTimer
    /// Renews the busy claims of the users this node's calls engage.
    let claimRenewal: LoopTimer
    /// Fires when the oldest forwarded op runs out of time.
    let forward: LoopTimer
    /// Writes what the node keeps in Redis again every hour.
    let registration: LoopTimer
    /// Closes the devices still behind their user's sequence once their lateness ran out.
    let sequenceCheck: LoopTimer
    /// Gives up on joining the cluster at start; nil once joined.
    var join: LoopTimer?

    init(context: LWSContext, fabric: ClusterFabric) {
        departureRetry = context.makeTimer { [unowned fabric] in fabric.sendDeparturesAgain() }
        lease = context.makeTimer { [unowned fabric] in fabric.renewLeases() }
        reconcileRetry = context.makeTimer { [unowned fabric] in
            fabric.standing.reconciling = false
            fabric.reconcile()
        }
        claimRenewal = context.makeTimer { [unowned fabric] in fabric.renewClaims() }
        forward = context.makeTimer { [unowned fabric] in fabric.expireForwards() }
        registration = context.makeTimer { [unowned fabric] in fabric.registerAgain() }
        sequenceCheck = context.makeTimer { [unowned fabric] in fabric.closeLaggingDevices() }
    }
}
