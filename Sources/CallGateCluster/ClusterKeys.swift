/// The Redis keys and channels of a cluster. Every membership key carries the hash tag
/// `{cluster}`, so that on a Redis Cluster they share a slot and one script may touch them all.
public enum ClusterKeys {
    /// The set of node ids that joined and were not yet taken over.
    public static let nodes = "cg:{cluster}:nodes"
    /// Hands out node numbers (`INCR`).
    public static let nodeNumbers = "cg:{cluster}:nodenum"
    /// The prefix of each node's heartbeat key: `"<incarnation>|<number>"` with a lease.
    public static let nodePrefix = "cg:{cluster}:node:"

    /// Which survivor is taking over the calls of `node`: its id, with a lease.
    public static func takeover(of node: String) -> String {
        "cg:{cluster}:takeover:" + node
    }

    /// The users `node` may hold a busy claim of: a set, with the claims' lease, that the
    /// node's next run reads to release the claims of calls that died with the previous run
    /// before they were durable.
    public static func claimed(by node: String) -> String {
        "cg:{cluster}:claimed:" + node
    }

    /// The heartbeat key of `node`.
    public static func node(_ node: String) -> String {
        nodePrefix + node
    }

    /// The channel of `node`: ops forwarded to it, their answers, departures and its probes.
    public static func nodeChannel(_ node: String) -> String {
        "cg:n:" + node
    }

    /// The channel of user `uid`: every push to them, for the nodes that hold their devices.
    public static func userChannel(_ uid: String) -> String {
        userChannelPrefix + uid
    }

    /// The calls that ring or engage user `uid`: a hash of node id -> that node's calls (a JSON
    /// array).
    public static func activeCalls(of uid: String) -> String {
        "cg:{u:" + uid + "}:calls"
    }

    /// How many devices of user `uid` each node holds: a hash of `"<node>|<incarnation>"` ->
    /// count, each run of a node writing its own field (`UserPresence`); readers count only the
    /// fields of runs they see live.
    public static func presence(of uid: String) -> String {
        "cg:{u:" + uid + "}:devices"
    }

    /// The calls and meetings user `uid` started in the last minute, on every node: a sorted set
    /// of one member per start, scored by when (Unix ms).
    public static func starts(of uid: String) -> String {
        "cg:{u:" + uid + "}:starts"
    }

    /// The profile of user `uid` (their `User` as JSON), as their last device to connect to a
    /// node described them: a call made on another node names them by it.
    public static func profile(_ uid: String) -> String {
        "cg:{u:" + uid + "}:user"
    }

    /// Where user `uid`'s push sequence stands: a hash of `epoch` (a string) and `seq` (the
    /// last number given).
    public static func pushSequence(of uid: String) -> String {
        "cg:{u:" + uid + "}:seq"
    }

    /// The recent pushes to user `uid`: a stream whose entry ids are the pushes' `seq`
    /// (`"<seq>-0"`), each entry the published `ClusterMessage.push` in field `m`.
    public static func pushes(of uid: String) -> String {
        "cg:{u:" + uid + "}:pushes"
    }

    /// The channel of group changes: every node keeps every group in memory.
    public static let groupsChannel = "cg:groups"

    /// The channel of webhook endpoint changes: every node reads the endpoints again at once.
    public static let webhooksChannel = "cg:webhooks"

    /// What every user's channel begins with.
    public static let userChannelPrefix = "cg:u:"

    /// The busy claim of user `uid`: `"<node>|<sessionId>|<c or j>"` (caller of a ringing call,
    /// or joined to an answered one), or `"<node>|-|p"` while an op of that node may engage
    /// them; a lease its node renews.
    public static func busy(_ uid: String) -> String {
        "cg:{u:" + uid + "}:busy"
    }

    /// Which node owns call or session `sessionId`: a hash with `owner` (a node id). The hash
    /// tag is the session, so a call's keys stay together on a Redis Cluster.
    public static func call(_ sessionId: String) -> String {
        "cg:call:{c:" + sessionId + "}"
    }
}
