import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation

/// Cluster mode: the calls of every node in a connecting device's `activeCalls`, through the
/// active-call index (`ActiveCallIndex`): each node writes, for every user an outcome touched,
/// its calls that ring or engage them, once the write of that outcome is durable (a call no
/// store has is listed nowhere); a connecting device reads the entries of the other live nodes
/// (as the last heartbeat saw them) once its subscription is confirmed. Service thread only.
extension ClusterFabric {
    /// Writes, after write `barrier`, the entries of the users `outcome` touched: those it pushed
    /// to about a call (not a count of missed calls), and those whose engagement changed.
    func indexActiveCalls<Reply>(of outcome: Outcome<Reply>, after barrier: UInt64) {
        guard !outcome.deliveries.isEmpty || !outcome.engagements.isEmpty else { return }
        var touched = Set(outcome.engagements)
        for delivery in outcome.deliveries {
            if case .missedCallsChanged = delivery.push { continue }
            touched.formUnion(delivery.users)
        }
        indexActiveCalls(of: Array(touched), after: barrier)
    }

    /// Writes the entries of `uids` as the Core has their calls now, after write `barrier`
    /// (default: the latest write, whatever it holds).
    func indexActiveCalls(of uids: [String], after barrier: UInt64? = nil) {
        let barrier = barrier ?? pipeline.latestBarrier
        let encoder = JSONEncoder()
        for uid in uids {
            let calls = core.activeCalls(of: uid)
            output.emit(.index(uid: uid, calls: calls.isEmpty ? nil : (try? encoder.encode(calls)).map(Array.init)), after: barrier)
        }
    }

    /// The calls of the other nodes that ring or engage `uid`, and those nodes; none when
    /// Redis cannot be read (logged): the device then learns of them from their next push.
    func activeCallsElsewhere(of uid: String, then done: @escaping (CallsElsewhere) -> Void) {
        let cluster = cluster
        cluster.activeCalls.read(uid) { [logger] result in
            switch result {
            case .success(let found):
                let entries = found.filter { cluster.membership.liveNodes.contains($0.node) }
                let decoder = JSONDecoder()
                done(CallsElsewhere(
                    calls: entries.flatMap { (try? decoder.decode([Call].self, from: Data($0.calls))) ?? [] },
                    owners: entries.map(\.node)))
            case .failure(let failure):
                logger.warning("the calls of other nodes could not be read", metadata: ["uid": "\(uid)", "error": "\(failure)"])
                done(CallsElsewhere())
            }
        }
    }
}

/// Cluster mode: the calls of other nodes that concern a connecting device's user.
struct CallsElsewhere {
    /// The calls, as their owners last wrote them.
    var calls: [Call] = []
    /// The nodes that own them: the device is announced to each.
    var owners: [String] = []
}
