import CallGateCluster
import CallGateCore
import CallGateProtocol
import LWS

/// A device's way in, in cluster mode: its slot under the device cap, counted on the nodes
/// together in its user's presence; its user's pushes, listened to before its sequence is read;
/// the calls of other nodes that concern its user; then the service admits it, and it follows
/// its user's sequence from where it was told it stands. Service thread only.
extension ClusterFabric {
    /// How many devices of `uid` passed `connect`'s checks here and are on their way in.
    func arriving(_ uid: String) -> Int {
        arrivals.counts[uid] ?? 0
    }

    /// Claims the device's slot in its user's presence (the cap holds on the nodes together),
    /// then listens to its user's pushes (`listen`); refuses it with ERR_TOO_MANY_DEVICES and
    /// 4009 over the cap, or with ERR_CLUSTER_UNAVAILABLE (it may send `connect` again) when
    /// Redis cannot count.
    func arrive(_ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?, answering request: ReplyAddress) {
        let id = connection.id
        let uid = claims.user.uid
        arrivals.counts[uid, default: 0] += 1
        // The device cap holds on the nodes together: this node claims one more slot in
        // the user's presence, which counts the devices of every live run.
        cluster.presence.claim(
            uid, devices: service.devices(of: uid, besides: recover), limit: configuration.maxDevicesPerUser,
            counting: cluster.membership.liveRuns
        ) { [self] claimed in
            guard case .success(true) = claimed else {
                arrivals.counts[uid] = arrivals.counts[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
                if arrivals.counts[uid] == nil {
                    arrivals.pushes.arrived(uid)
                }
                userLeft(uid)
                guard hub[id] === connection else { return }
                if case .failure(let failure) = claimed {
                    connection.life.connectFailed()
                    output.fail(request, code: .clusterUnavailable, message: "cannot count your devices in Redis: \(failure); send connect again shortly")
                    return
                }
                hub.noteLimit(.tooManyDevices, metadata: ["uid": "\(uid)", "client": "\(connection.clientAddress)"])
                output.fail(
                    request, code: .tooManyDevices,
                    message: "\(uid) has \(configuration.maxDevicesPerUser) devices connected already, on the nodes together")
                output.emit(.close(id, code: CloseCode.tooManyDevices, reason: "too many devices"))
                return
            }
            listen(connection, as: claims, recovering: recover, answering: request)
        }
    }

    /// Once the device has its slot, listens to its user's pushes, reads their push sequence,
    /// the calls of the other nodes and their missed calls, and registers it. Pushes to the user
    /// reach this node once Redis confirmed its subscription: only then are the sequence, the
    /// calls and the missed calls read (Redis and the store at once), and the device told it is
    /// connected. Until then it may send no op, and the `connect` deadline still runs; pushes
    /// that come meanwhile are held for it (`ArrivingPushes`).
    private func listen(
        _ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?,
        answering request: ReplyAddress
    ) {
        let uid = claims.user.uid
        cluster.bus.listen(to: uid) { [self] in
            var missedCalls: MissedCalls??
            var redis: (recall: Result<PushStream.Recall, RedisFailure>, elsewhere: CallsElsewhere)?
            let registerWhenBothRead: () -> Void = { [self] in
                guard let read = missedCalls, let redis else { return }
                register(
                    connection, as: claims, recovering: recover, recall: redis.recall, elsewhere: redis.elsewhere,
                    missedCalls: read, answering: request)
            }
            service.readMissedCalls(of: uid) { read in
                missedCalls = .some(read)
                registerWhenBothRead()
            }
            cluster.pushes.read(uid, recovering: recover.map { ($0.epoch, $0.seq) }) { [self] recall in
                activeCallsElsewhere(of: uid) { elsewhere in
                    redis = (recall, elsewhere)
                    registerWhenBothRead()
                }
            }
        }
    }

    /// Has the service admit the device with what `listen` read, or refuses it with
    /// ERR_CLUSTER_UNAVAILABLE when its push sequence could not be read.
    private func register(
        _ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?,
        recall: Result<PushStream.Recall, RedisFailure>, elsewhere: CallsElsewhere, missedCalls: MissedCalls?,
        answering request: ReplyAddress
    ) {
        let uid = claims.user.uid
        // Counted out before it is registered (which writes the user's presence), the held
        // pushes let go after (so that it gets them).
        arrivals.counts[uid] = arrivals.counts[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
        defer {
            if arrivals.counts[uid] == nil {
                arrivals.pushes.arrived(uid)
            }
        }
        guard hub[connection.id] === connection else {
            userLeft(uid)
            return
        }
        switch recall {
        case .success(let recall):
            service.admit(
                connection, as: claims, recovering: recover, recall: shared(recall, of: uid),
                elsewhere: elsewhere.calls, missedCalls: missedCalls, answering: request)
            markPresent(claims.user)
            for owner in elsewhere.owners {
                announce(connection, to: owner)
            }
        case .failure(let failure):
            connection.life.connectFailed()
            userLeft(uid)
            output.fail(
                request, code: .clusterUnavailable,
                message: "cannot read your push sequence in Redis: \(failure); send connect again shortly")
        }
    }

    /// The device was told its user's sequence stands at `recall.position` and was given what
    /// it missed: it follows the sequence from there, and the pushes that came while it was on
    /// its way in follow the replay.
    func admitted(_ connection: ClientConnection, recall: Recall, previous: ConnectionID?, after barrier: UInt64) {
        connection.sequence = recall.position
        connection.sequenceFloor = recall.position.seq
        for entry in recall.arrived {
            _ = offer(entry, in: recall.position.epoch, to: connection, skipping: previous, after: barrier)
        }
    }

    /// What a connecting device is told of its user's sequence, from what Redis answered, and
    /// the pushes after it that came while the device was on its way in.
    private func shared(_ recalled: PushStream.Recall, of uid: String) -> Recall {
        let position = HistoryPosition(epoch: recalled.epoch, seq: recalled.seq)
        return Recall(
            position: position, missed: recalled.missed.map { $0.compactMap(HistoryEntry.init) },
            arrived: arrivals.pushes.following(position, of: uid))
    }
}
