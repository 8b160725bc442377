/// Which node owns each call and session, kept in Redis (`ClusterKeys.call`), so that an op on
/// a call that reaches another node is forwarded to its owner, never guessed at.
///
/// A call is recorded by the node that creates it before any push about it is published (both
/// go over the one command connection, in order), so a device that heard of a call finds its
/// owner. A session joined by id that no node knows is claimed atomically (`claim`): two nodes
/// joined to one new meeting at once agree on one owner. Records live `lifetime` from when they
/// were written (and are written again when the node's Redis connection comes back): a call or
/// meeting that lasts longer loses its record. Service thread only.
public final class CallOwners {
    /// How long a record lives after it was written or claimed.
    public let lifetime: Duration
    private let nodeID: String
    private let client: RedisClient

    /// The records of `nodeID`'s calls, over `client`.
    public init(nodeID: String, client: RedisClient, lifetime: Duration = .seconds(86_400)) {
        self.nodeID = nodeID
        self.client = client
        self.lifetime = lifetime
    }

    /// Records this node as the owner of the new call `sessionId`; a failure is logged by the
    /// caller's next op, which finds no owner and runs where it lands.
    public func record(_ sessionId: String, then done: @escaping (RedisFailure?) -> Void) {
        let key = Array(ClusterKeys.call(sessionId).utf8)
        client.send([Array("HSET".utf8), key, Array("owner".utf8), Array(nodeID.utf8)]) { _ in }
        client.send([Array("PEXPIRE".utf8), key, Array(String(lifetime.microseconds / 1000).utf8)]) { result in
            if case .failure(let failure) = result {
                done(failure)
            } else {
                done(nil)
            }
        }
    }

    /// The node that owns `sessionId`, nil when no node recorded it.
    public func owner(of sessionId: String, then done: @escaping (Result<String?, RedisFailure>) -> Void) {
        client.send([Array("HGET".utf8), Array(ClusterKeys.call(sessionId).utf8), Array("owner".utf8)]) { result in
            done(result.map(\.text))
        }
    }

    /// Claims `sessionId` for this node unless a node owns it already; `done` gets the owner
    /// (this node when the claim won).
    public func claim(_ sessionId: String, then done: @escaping (Result<String?, RedisFailure>) -> Void) {
        client.run(
            ClusterScripts.claimCall, keys: [ClusterKeys.call(sessionId)],
            arguments: [Array(nodeID.utf8), Array(String(lifetime.microseconds / 1000).utf8)]
        ) { result in
            done(result.map(\.text))
        }
    }
}
