/// An open call a node owns, with the fencing epoch it owns it under (each takeover raises it).
public struct OwnedCall: Sendable {
    public let record: CallLogRecord
    public let epoch: Int64

    public init(record: CallLogRecord, epoch: Int64) {
        self.record = record
        self.epoch = epoch
    }
}

/// What cluster mode needs of the store every node shares (PostgreSQL): call ids that are unique
/// across nodes, the open calls of a node, which a survivor (or the node itself, restarting)
/// takes over, and single groups that another node changed. Blocks its caller: call off the
/// service thread.
public protocol ClusterStore: CallLogStore {
    /// A block of call ids no other node gets, all above every id saved so far.
    func reserveCallIDs() throws -> ClosedRange<Int64>
    /// Moves the open calls of `deadNode` to `node`, each under a raised epoch, oldest first.
    func takeOverOpenCalls(of deadNode: String, by node: String) throws -> [OwnedCall]
    /// Which of `ids` another node owns now: a node back from being cut off lets them go.
    func callIDsOwnedElsewhere(than node: String, among ids: [Int64]) throws -> Set<Int64>
    /// The group `guid` as saved now, nil when there is none.
    func group(_ guid: String) throws -> GroupRecord?
}
