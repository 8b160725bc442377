import CallGateCore
import CallGateProtocol

/// Cluster mode: finding the devices that missed pushes while nothing came after to show it.
///
/// A device notices a missed push at the next one (a gap in `seq`, see `advance`). But pushes
/// published while this node's subscription was down (the node frozen, its Redis link cut) never
/// reach it, and when no later push of that user comes, the device waits on: a cancelled ring
/// rings until its own timeout. So whenever a user's channel is subscribed again, and with every
/// `registerAgain`, the node reads where its users' sequences stand in Redis (which renews them)
/// and closes with 4011 each device behind that: it recovers from the stream what it missed. A
/// sequence Redis lost (it restarted empty) is not put back: no node can tell whether pushes of it
/// were missed somewhere, so the next push or connect begins a new epoch, and the devices of the
/// old one learn that they must rebuild. Service thread only.
extension ClusterFabric {
    /// How long a device behind Redis's sequence is given for the pushes it lacks to arrive on
    /// the subscription (numbered before the read, yet still on their way) before it is closed.
    static let sequenceLateness: Int64 = 1000

    /// The channel of `uid` is subscribed (again): their sequence is checked at the end of this
    /// turn, together with the other users subscribed in it.
    func userChannelConfirmed(_ uid: String) {
        let first = sequenceChecks.confirmed.isEmpty
        sequenceChecks.confirmed.insert(uid)
        guard first else { return }
        context.post { [self] in
            let uids = sequenceChecks.confirmed
            sequenceChecks.confirmed.removeAll()
            checkSequences(of: uids)
        }
    }

    /// Reads where the sequences of `uids` stand in Redis (renewing them) and closes with 4011
    /// each device of theirs here that is behind, unless what it lacks arrives within
    /// `sequenceLateness`. Users with no device following a sequence here are not read.
    func checkSequences(of uids: some Sequence<String>) {
        let followed = uids.filter { uid in devices(of: uid).contains { hub[$0]?.sequence != nil } }
        guard !followed.isEmpty else { return }
        cluster.pushes.sequences(of: followed) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let found):
                let due = clock.monotonicMillis() + Self.sequenceLateness
                for (uid, current) in found {
                    let wanted = HistoryPosition(epoch: current.epoch, seq: current.seq)
                    for id in devices(of: uid) where isBehind(hub[id], wanted) {
                        sequenceChecks.lagging.append((id, wanted, due))
                    }
                }
                scheduleLaggingCheck()
            case .failure(let failure):
                // A device behind finds its gap at the next push, or at the next check.
                logger.warning("push sequences not checked", metadata: ["users": "\(followed.count)", "error": "\(failure)"])
            }
        }
    }

    /// Closes with 4011 each device still behind the sequence it was found behind once its
    /// lateness ran out, and waits for the others.
    func closeLaggingDevices() {
        let now = clock.monotonicMillis()
        var waiting: [(id: ConnectionID, wanted: HistoryPosition, due: Int64)] = []
        for entry in sequenceChecks.lagging {
            if entry.due > now {
                waiting.append(entry)
            } else if let connection = hub[entry.id], isBehind(connection, entry.wanted) {
                breakSequence(of: connection, at: entry.wanted)
            }
        }
        sequenceChecks.lagging = waiting
        scheduleLaggingCheck()
    }

    /// Whether `connection` follows a sequence and stands before `wanted` in it, or follows
    /// another epoch.
    private func isBehind(_ connection: ClientConnection?, _ wanted: HistoryPosition) -> Bool {
        guard let position = connection?.sequence else { return false }
        return position.epoch != wanted.epoch || position.seq < wanted.seq
    }

    private func scheduleLaggingCheck() {
        guard let next = sequenceChecks.lagging.map(\.due).min() else { return }
        _ = timers.sequenceCheck.schedule(afterMicroseconds: (next - clock.monotonicMillis()) * 1000)
    }
}

/// The sequence checks under way (`ClusterFabric+SequenceChecks`). Service thread only.
struct SequenceChecks {
    /// Users whose channel was subscribed in this turn, to be checked at its end.
    var confirmed: Set<String> = []
    /// Devices found behind their user's sequence: the position they should reach, and by when.
    var lagging: [(id: ConnectionID, wanted: HistoryPosition, due: Int64)] = []
}
