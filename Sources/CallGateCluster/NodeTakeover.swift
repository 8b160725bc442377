/// Who takes over the calls of a node that lapsed (killed, or left on SIGTERM): the first
/// survivor to claim it (`ClusterKeys.takeover`, a lock with a lease of `lease`, taken only
/// while the node's own lease is lapsed). The node itself, restarting, takes the same lock to
/// take its calls back (`NodeIDClaim.lockTakeBack`), so a survivor and the node never take them
/// both. The database then decides for each call (one transaction, the epoch raised); a
/// survivor that dies while taking over lets its lock lapse, and another takes over what is
/// left. Service thread only.
public final class NodeTakeover {
    /// How long a claim to take a node over lives.
    public let lease: Duration
    private let nodeID: String
    private let client: RedisClient

    /// How long a survivor's takeover lock lives unless it finishes first.
    public static let defaultLease: Duration = .seconds(30)

    public init(nodeID: String, client: RedisClient, lease: Duration = defaultLease) {
        self.nodeID = nodeID
        self.client = client
        self.lease = lease
    }

    /// Claims the takeover of `node` while its lease is lapsed; `done` says whether this node
    /// won it.
    public func claim(_ node: String, then done: @escaping (Bool) -> Void) {
        client.run(
            ClusterScripts.claimTakeover, keys: [ClusterKeys.node(node), ClusterKeys.takeover(of: node)],
            arguments: [Array(nodeID.utf8), Array(String(lease.microseconds / 1000).utf8)]
        ) { result in
            done((try? result.get().integer) == 1)
        }
    }

    /// Takes this node's own takeover lock, back from a suspension, while it checks which of its
    /// calls a survivor took over: no survivor starts taking them over during the check, and one
    /// under way has finished (freeing the lock) before the check may read. `done` says whether
    /// the lock is this node's (taken now, or already: a reply lost after Redis took it); false
    /// when a survivor holds it or Redis did not answer (ask again). The lock lives
    /// `ownLockLease`, so a node that dies holding it blocks survivors only that long.
    public func lockOwn(then done: @escaping (Bool) -> Void) {
        let key = ClusterKeys.takeover(of: nodeID)
        client.send(["SET", key, nodeID, "NX", "PX", String(Self.ownLockLease.microseconds / 1000)]) { [client, nodeID] result in
            switch result {
            case .success(.status):
                done(true)
            case .success(.null):
                client.send(["GET", key]) { holder in
                    done((try? holder.get())?.text == nodeID)
                }
            default:
                done(false)
            }
        }
    }

    /// How long the lock `lockOwn` takes lives unless freed: longer than the check it covers (one
    /// database read) takes, short enough that survivors are not kept waiting long.
    public static let ownLockLease: Duration = .seconds(10)

    /// Frees the lock `lockOwn` took, if this node still holds it.
    public func unlockOwn() {
        client.run(
            ClusterScripts.release, keys: [ClusterKeys.takeover(of: nodeID)], arguments: [Array(nodeID.utf8)]
        ) { _ in }
    }

    /// Gives up a takeover that could not be done (the database could not be reached): another
    /// survivor, or this one, tries again at a later heartbeat.
    public func abandon(_ node: String) {
        client.send([Array("DEL".utf8), Array(ClusterKeys.takeover(of: node).utf8)]) { _ in }
    }

    /// Ends the takeover of `node`, whose calls are this node's now: it leaves the node set
    /// (unless it is back) and its claim is freed.
    public func finish(_ node: String) {
        client.run(
            ClusterScripts.forget, keys: [ClusterKeys.node(node), ClusterKeys.nodes, ClusterKeys.takeover(of: node)],
            arguments: [Array(node.utf8)]
        ) { _ in }
    }
}
