import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation

/// Cluster mode: the calls of every node in a connecting device's `activeCalls`, through the
/// active-call index (`ActiveCallIndex`): each node writes, for every user an outcome touched,
/// its calls that ring or engage them; a connecting device reads the entries of the other live
/// nodes once its subscription is confirmed. Service thread only.
extension GatewayService {
    /// Writes the entries of the users `outcome` touched: those it pushed to, and those whose
    /// engagement changed.
    func indexActiveCalls<Reply>(of outcome: Outcome<Reply>) {
        guard cluster != nil, !outcome.deliveries.isEmpty || !outcome.engagements.isEmpty else { return }
        var touched = Set(outcome.engagements)
        for delivery in outcome.deliveries {
            touched.formUnion(delivery.users)
        }
        indexActiveCalls(of: Array(touched))
    }

    /// Writes the entries of `uids` as the Core has their calls now.
    func indexActiveCalls(of uids: [String]) {
        guard let cluster else { return }
        let encoder = JSONEncoder()
        for uid in uids {
            let calls = core.activeCalls(of: uid)
            cluster.activeCalls.write(uid, calls: calls.isEmpty ? nil : (try? encoder.encode(calls)).map(Array.init))
        }
    }

    /// The calls of the other live nodes that ring or engage `uid`; none when Redis cannot be
    /// read (logged): the device then learns of them from their next push.
    func activeCallsElsewhere(of uid: String, then done: @escaping ([Call]) -> Void) {
        guard let cluster else {
            done([])
            return
        }
        let others = cluster.membership.liveNodes.filter { $0 != cluster.nodeID }
        cluster.activeCalls.read(uid, on: others) { [logger] result in
            switch result {
            case .success(let entries):
                let decoder = JSONDecoder()
                done(entries.flatMap { (try? decoder.decode([Call].self, from: Data($0))) ?? [] })
            case .failure(let failure):
                logger.warning("the calls of other nodes could not be read", metadata: ["uid": "\(uid)", "error": "\(failure)"])
                done([])
            }
        }
    }
}
