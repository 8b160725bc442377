import CallGateCore
import Dispatch
import LWS
import Logging

/// Cluster mode: reserves blocks of call ids from the shared store for `ReservedCallIDs`, on a
/// queue of its own (the store blocks), and hands each block back on the service thread.
final class CallIDReserver: @unchecked Sendable {
    private let store: any ClusterStore
    private let context: LWSContext
    private let logger: Logger
    private let queue = DispatchQueue(label: "callgate.call-ids")
    /// The ids the blocks go to; service thread only.
    weak var ids: ReservedCallIDs?

    init(store: any ClusterStore, context: LWSContext, logger: Logger) {
        self.store = store
        self.context = context
        self.logger = logger
    }

    /// The call ids of a cluster node: `first`, the block reserved at start, then the blocks
    /// a reserver over `store` takes as they run out.
    static func ids(startingWith first: ClosedRange<Int64>, from store: any ClusterStore, context: LWSContext, logger: Logger) -> ReservedCallIDs {
        let reserver = CallIDReserver(store: store, context: context, logger: logger)
        let ids = ReservedCallIDs { reserver.reserve() }
        reserver.ids = ids
        ids.add(first)
        return ids
    }

    /// Reserves one block; `ids` gets it, or is told the reservation failed (the next call id
    /// taken asks again). Service thread.
    func reserve() {
        queue.async { [self] in
            let result = Result { try store.reserveCallIDs() }
            context.post { [self] in
                switch result {
                case .success(let block):
                    ids?.add(block)
                case .failure(let error):
                    logger.warning("cannot reserve call ids", metadata: ["error": "\(error)"])
                    ids?.reservationFailed()
                }
            }
        }
    }
}
