import CallGateCluster
import CallGateCore
import CallGateProtocol

/// Cluster mode: where each user's devices are, as the nodes tell one another.
///
/// In Redis each node keeps how many devices of each user it holds (`UserPresence`), written
/// whenever that changes and written again once Redis is back when a write failed: the owner of
/// a call reads it for `onlineDevices` when it rings, and to find a user's devices before their
/// grace period ends their call. On the bus a device is announced to the owners of its user's
/// calls, which run it as a device of their own (`RemoteDevices`) under a lease its node renews
/// every second in one message per owner; its departure is sent again until that owner's
/// channel got it. A departure that never arrives lapses with the lease. Service thread only.
extension ClusterFabric {
    /// A departure on its way to the node that ran the device.
    struct Departure: Hashable {
        let connection: UInt64
        let node: String
    }

    /// Most departures waiting to be sent again; past it, further ones wait for their lease.
    static let maxDepartures = 10_000
    /// How often departures that did not reach their node are sent again.
    static let departureRetryInterval: Duration = .milliseconds(500)
    /// Most connections renewed in one message.
    static let maxRenewedPerMessage = 4096
    /// Most devices one node's word in Redis counts for (a bound on what Redis can make us add).
    static let maxDevicesCounted = 1_000_000

    /// The Core forgot a device of `uid` that closed here: its user's presence is written, and
    /// other nodes are asked for their devices when it was the last one of a user in a call.
    func left(_ uid: String) {
        userLeft(uid)
        lookForOtherDevices(of: uid)
    }

    /// The devices of `uid` whose sockets this node holds, oldest first: the Core also runs
    /// devices of other nodes that forwarded ops here or were announced to it.
    func devices(of uid: String) -> [ConnectionID] {
        let devices = core.connections(of: uid)
        guard !remoteDevices.isEmpty else { return devices }
        return devices.filter { hub[$0] != nil }
    }

    /// A device of `uid` left: the node writes how many it holds now; once none is left here
    /// (nor on its way in) it stops listening to their pushes.
    func userLeft(_ uid: String) {
        guard arrivals.counts[uid] == nil else { return }
        writePresence(of: uid)
        if devices(of: uid).isEmpty {
            cluster.bus.stopListening(to: uid)
        }
    }

    /// Writes in Redis how many devices of `uid` this node holds now, those on their way in
    /// included (each claimed its slot), and their `profile` when given; a write that Redis did
    /// not take is made again a second later (`renewLeases`) or once Redis is back.
    func writePresence(of uid: String, profile: [UInt8]? = nil) {
        let devices = devices(of: uid).count + (arrivals.counts[uid] ?? 0)
        cluster.presence.write(uid, devices: devices, profile: profile) { [weak self] written in
            if !written {
                self?.unwrittenPresence.insert(uid)
            }
        }
    }

    /// Writes again the presence of every user whose write failed.
    func writeUnwrittenPresence() {
        let users = unwrittenPresence
        unwrittenPresence.removeAll()
        for uid in users {
            writePresence(of: uid)
        }
    }

    /// Says in Redis how many devices of `user` this node holds, with their profile: when one
    /// connected, and when the node writes what it keeps in Redis again.
    func markPresent(_ user: User) {
        writePresence(of: user.uid, profile: user.clusterJSON)
    }

    /// Tells node `node`, which owns a call of `connection`'s user, that this device is here:
    /// the user is present there (no grace period runs for them) while its lease is renewed.
    /// Once per node, unless `again` (the node asked for the user's devices).
    func announce(_ connection: ClientConnection, to node: String, again: Bool = false) {
        guard node != cluster.nodeID, connection.knownTo.insert(node).inserted || again,
              let userJSON = core.user(of: connection.id)?.clusterJSON else { return }
        let message = ClusterMessage.present(from: cluster.nodeID, connection: connection.id.rawValue, user: userJSON)
        cluster.bus.send(message, toNode: node) { _ in }
    }

    /// Tells the nodes that run `connection` as one of theirs that it is gone; each is told
    /// again until its channel got it or it left the cluster.
    func departed(_ connection: ClientConnection) {
        for node in connection.knownTo {
            sendDeparture(Departure(connection: connection.id.rawValue, node: node))
        }
        connection.knownTo.removeAll()
    }

    private func sendDeparture(_ departure: Departure) {
        cluster.bus.send(.departed(connection: departure.connection), toNode: departure.node) { [self] result in
            if case .success(let reply) = result, (reply.integer ?? 0) > 0 {
                departures.remove(departure)
                return
            }
            guard liveNodes.contains(departure.node) else {
                departures.remove(departure)
                return
            }
            guard departures.count < Self.maxDepartures || departures.contains(departure) else {
                // Its lease lapses on that node instead.
                return
            }
            departures.insert(departure)
            timers.departureRetry.schedule(afterMicroseconds: Self.departureRetryInterval.wholeMilliseconds * 1000)
        }
    }

    /// Sends again the departures that did not reach their node.
    func sendDeparturesAgain() {
        for departure in departures {
            sendDeparture(departure)
        }
    }

    /// Renews the leases of this node's devices that other nodes run (one message per node),
    /// lets go of the devices of other nodes whose lease lapsed here, and writes again the
    /// presence Redis did not take; then waits for the next renewal.
    func renewLeases() {
        timers.lease.schedule(afterMicroseconds: RemoteDevices.renewInterval.wholeMilliseconds * 1000)
        if cluster.client.isReady, !unwrittenPresence.isEmpty {
            writeUnwrittenPresence()
        }
        var held: [String: [UInt64]] = [:]
        for connection in hub.connections.values where connection.isConnected {
            for node in connection.knownTo {
                held[node, default: []].append(connection.id.rawValue)
            }
        }
        for (node, ids) in held where liveNodes.contains(node) && node != cluster.nodeID {
            var start = 0
            while start < ids.count {
                let part = Array(ids[start..<min(ids.count, start + Self.maxRenewedPerMessage)])
                cluster.bus.send(.renew(from: cluster.nodeID, connections: part), toNode: node) { _ in }
                start += Self.maxRenewedPerMessage
            }
        }
        // A node that may not run its calls (cut off, or checking what it lost) judges no lease.
        guard mayRunCalls() else { return }
        let now = clock.monotonicMillis()
        let silence = (ContinuousClock.now - cluster.bus.lastHeard).wholeMilliseconds
        let hearing = cluster.bus.isReady ? standing.busHeardSince : nil
        let lapsed = remoteDevices.removeLapsed(heardAt: now - max(0, silence), hearingSince: hearing)
        guard !lapsed.isEmpty else { return }
        metrics.cluster.leasesLapsed(lapsed.count)
        logger.warning("devices of other nodes lapsed: no renewal came", metadata: ["devices": "\(lapsed.count)"])
        for id in lapsed {
            forgetRemote(id)
        }
    }

    /// A presence message on this node's channel.
    func receivedPresence(_ message: ClusterMessage) {
        switch message {
        case .present(let node, let connection, let userJSON):
            let id = ConnectionID(connection)
            guard hub[id] == nil, let user = User(clusterJSON: userJSON) else { return }
            remoteDevices.admit(id, of: node, now: clock.monotonicMillis())
            core.admitRemote(id, as: user)
            service.armCoreTimer(at: core.nextDeadline)
        case .lookFor(let node, let uid):
            for id in devices(of: uid) {
                if let connection = hub[id] {
                    announce(connection, to: node, again: true)
                }
            }
        case .departed(let connection):
            let id = ConnectionID(connection)
            guard remoteDevices.remove(id) else { return }
            forgetRemote(id)
        case .renew(let node, let ids):
            let unknown = remoteDevices.renew(ids.map(ConnectionID.init), from: node, now: clock.monotonicMillis())
            if !unknown.isEmpty {
                cluster.bus.send(.unknown(from: cluster.nodeID, connections: unknown.map(\.rawValue)), toNode: node) { _ in }
            }
        case .unknown(let node, let ids):
            for id in ids {
                if let connection = hub[ConnectionID(id)], connection.isConnected, connection.knownTo.contains(node) {
                    announce(connection, to: node, again: true)
                }
            }
        default:
            return
        }
    }

    /// A device of another node that this node ran is gone.
    func forgetRemote(_ id: ConnectionID) {
        let uid = core.user(of: id)?.uid
        send(core.disconnect(id, runningTimers: mayRunCalls()))
        if let uid {
            lookForOtherDevices(of: uid)
        }
    }

    /// A device of `uid` that this node ran went: when it was the last one it knew of and `uid`
    /// has calls here, the other nodes holding a device of theirs (but those whose lease lapsed)
    /// are asked to announce it, well before the grace period that started would end their calls.
    func lookForOtherDevices(of uid: String) {
        guard core.connections(of: uid).isEmpty, !core.activeCalls(of: uid).isEmpty else { return }
        cluster.presence.nodes(holding: uid) { [cluster] nodes in
            for node in nodes where !cluster.membership.lapsedNodes.contains(node) {
                cluster.bus.send(.lookFor(from: cluster.nodeID, uid: uid), toNode: node) { _ in }
            }
        }
    }

    /// Once the node joined: the users of the calls it took back at start may have devices on
    /// other nodes, which are asked to announce them before their grace periods end the calls.
    func lookForDevicesOfResumedCalls() {
        for uid in core.usersWithActiveCalls {
            lookForOtherDevices(of: uid)
        }
    }

    /// How many devices each of `callees` has on every node, by what this node holds (its
    /// devices on their way in too: they listen to their user's pushes already, so a ring now
    /// reaches them once they are in, as their node's claim in Redis counts them for the other
    /// nodes) and what the other nodes' live runs wrote in Redis (`devices`, per callee; a dead
    /// run does not count, and one that joined since the last heartbeat only once it said so).
    func onlineDevices(of callees: [String], elsewhere devices: [String: [UserPresence.Entry]]) -> [String: Int] {
        var online: [String: Int] = [:]
        for uid in callees {
            online[uid] = self.devices(of: uid).count + arriving(uid) + devicesElsewhere(devices[uid] ?? [])
        }
        return online
    }

    /// How many devices the other nodes' live runs say they hold, by `entries` (one user's
    /// presence in Redis); a dead run does not count, and each run counts for at most
    /// `maxDevicesCounted`.
    func devicesElsewhere(_ entries: [UserPresence.Entry]) -> Int {
        let runs = cluster.membership.liveRuns
        return entries.filter { $0.node != cluster.nodeID && runs[$0.node] == $0.incarnation }
            .reduce(0) { $0 + min($1.count, Self.maxDevicesCounted) }
    }
}
