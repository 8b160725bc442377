/// The Lua scripts of cluster mode: each runs atomically in Redis, which is what makes a claim or
/// a heartbeat race-free across nodes. Their sources are the files of `Scripts/` (one per
/// script, named after its property here), compiled into the binary; what each takes and
/// answers is documented here.
enum ClusterScripts {
    /// Renews this node's heartbeat lease unless another process holds its id, and reports which
    /// nodes of the set are live and which have let their lease lapse.
    /// It also keeps the node-number counter at or above this node's number, so that a Redis
    /// restarted empty never hands a live node's number to a new one.
    /// KEYS: the node's key, the node set, the node-number counter. ARGV: `"<incarnation>|<number>"`,
    /// the lease in ms, the node id, the node key prefix, the node's number. Returns
    /// `{1, live ids, lapsed ids, the live nodes' "<incarnation>|<number>" in the same order}`,
    /// or `{0, holder}` when another incarnation holds the id.
    static let heartbeat = RedisScript(name: "heartbeat", lua: PackageResources.heartbeat_lua)

    /// Writes how many devices of a user this run of a node holds (its field `"<node>|<run>"`;
    /// 0: the field goes) and drops the fields of the node's earlier runs. KEYS: the user's
    /// presence key. ARGV: the node id, the field, the count, the key's lifetime in ms. Returns 1.
    static let writePresence = RedisScript(name: "write-presence", lua: PackageResources.writePresence_lua)

    /// Gives back what this process set at start: deletes a key if it still holds the value
    /// this process set (the node's lease, claimed by a start that then failed, which leaves the
    /// node set alone; the takeover lock, once the node's calls are taken back). KEYS: the key.
    /// ARGV: the value.
    static let release = RedisScript(name: "release", lua: PackageResources.release_lua)

    /// Leaves the cluster: deletes this node's key (if this incarnation holds it) and keeps its
    /// set entry, so that a survivor sees it lapsed at once and takes over its calls.
    /// KEYS: the node's key. ARGV: `"<incarnation>|<number>"`.
    static let leave = RedisScript(name: "leave", lua: PackageResources.leave_lua)

    /// Claims the takeover of a node, only while its lease is lapsed (a node restarting under its
    /// id claims the lease first, then this same lock, to take its calls back) and nobody holds
    /// the lock. KEYS: the node's key, the takeover key. ARGV: this node's id, the lock's lease
    /// in ms. Returns 1 when claimed, else 0.
    static let claimTakeover = RedisScript(name: "claim-takeover", lua: PackageResources.claimTakeover_lua)

    /// Ends a takeover: removes the node taken over from the set unless it is back (its key
    /// exists again), and frees the takeover claim. KEYS: the node's key, the node set, the
    /// takeover key. ARGV: the node id.
    static let forget = RedisScript(name: "forget", lua: PackageResources.forget_lua)

    /// Claims call or session `sessionId` for this node unless some node owns it already, and
    /// says who owns it: the atomic creation of a meeting that two nodes are joined to at once.
    /// KEYS: the call's key. ARGV: the node id, the record's lifetime in ms. Returns the owner.
    static let claimCall = RedisScript(name: "claim-call", lua: PackageResources.claimCall_lua)

    /// Claims a user for an op of this node that may engage them, unless another node's claim
    /// holds them (a node may always replace its own claims: its Core decides among its calls),
    /// or, for a call start, unless they started `limit` calls in the last `window` (the start
    /// is counted); and reads the claims, profiles and devices per node of the n users it would
    /// ring. KEYS: the user's busy key, their starts, then the n busy keys, the n profile keys
    /// and the n presence keys of the users to ring. ARGV: the node's prefix `"<node>|"`, the
    /// claim, the lease in ms, n, `1` to replace a claim of this node (else one is kept as it is:
    /// it shows other nodes the user's call until the op is done), now (Unix ms), the window in
    /// ms, the limit (0: no start), the start's member. Returns `{1, claims, profiles, devices}`
    /// (claims and profiles false where there is none, devices each a flat list of field,
    /// count), `{0, the holding claim}`, or `{2}` when the starts are used up.
    static let claimUser = RedisScript(name: "claim-user", lua: PackageResources.claimUser_lua)

    /// Counts a start (a meeting) of a user unless they started `limit` in the last `window`.
    /// KEYS: the user's starts. ARGV: now (Unix ms), the window in ms, the limit, the start's
    /// member. Returns 1 when counted, else 0.
    static let spendStart = RedisScript(name: "spend-start", lua: PackageResources.spendStart_lua)

    /// Claims a device slot of a user: sets this run's count of their devices (the new one
    /// included) unless, with the counts of the other live runs, it passes the limit. KEYS: the
    /// user's presence key. ARGV: this run's field, its count, the limit, the key's lifetime in
    /// ms, then the fields of the other live runs. Returns `{1}`, or `{0, the others' count}`.
    static let claimDevice = RedisScript(name: "claim-device", lua: PackageResources.claimDevice_lua)

    /// Releases this node's claim of a user: deletes it if it is this node's. KEYS: the user's
    /// busy key. ARGV: the node's prefix `"<node>|"`.
    static let releaseUser = RedisScript(name: "release-user", lua: PackageResources.releaseUser_lua)

    /// Adds a user to the set of those a node may hold a claim of, and gives the set the claims'
    /// lease. KEYS: the set. ARGV: the uid, the lease in ms.
    static let noteClaimed = RedisScript(name: "note-claimed", lua: PackageResources.noteClaimed_lua)

    /// Moves a user's claim from a node taken over to this node in one step, so that no other
    /// node can claim the user in between: sets it unless another node's claim holds them.
    /// KEYS: the user's busy key. ARGV: the taken node's prefix, this node's prefix, the claim,
    /// the lease in ms. Returns 1 when set, else 0.
    static let adoptUser = RedisScript(name: "adopt-user", lua: PackageResources.adoptUser_lua)

    /// Renews this node's claims: each key still holding its claim gets a fresh lease, and one
    /// that lapsed is claimed again unless someone else claimed it meanwhile. KEYS: busy keys.
    /// ARGV: the lease in ms, then each key's claim.
    static let renewUsers = RedisScript(name: "renew-users", lua: PackageResources.renewUsers_lua)

    /// Numbers a push to a user, keeps it in their stream and publishes it on their channel, in
    /// one step, so that every node sees a user's pushes in the order of their numbers. A user
    /// whose sequence is gone (never begun, lapsed, Redis restarted empty) begins a new one in
    /// the epoch given. KEYS: the user's sequence, their stream. ARGV: a fresh epoch, the
    /// sequence's lifetime in ms, the most entries kept, the stream's lifetime in ms, the
    /// user's channel, the message before its epoch and seq, the message after them. Returns
    /// the seq.
    static let appendPush = RedisScript(name: "append-push", lua: PackageResources.appendPush_lua)

    /// Where a user's sequence stands (begun in the epoch given if need be, and kept for its
    /// lifetime again) and, for a device recovering in that epoch, the kept pushes from a seq
    /// on. KEYS: the user's sequence, their stream. ARGV: a fresh epoch, the sequence's lifetime
    /// in ms, the recovering epoch (empty for none), the first stream id wanted, the most
    /// entries to read. Returns `{epoch, seq}`, followed by the messages when the epochs match.
    static let readPushes = RedisScript(name: "read-pushes", lua: PackageResources.readPushes_lua)

    /// Where the sequences of some users stand, each kept for its lifetime again; a sequence
    /// Redis lost (restarted empty, or it lapsed) is not begun: the next push or connect does
    /// that. KEYS: the users' sequences. ARGV: the sequences' lifetime in ms. Returns, per key
    /// in order, its epoch and seq (an empty epoch and 0 for a sequence Redis does not have).
    static let readSequences = RedisScript(name: "read-sequences", lua: PackageResources.readSequences_lua)
}
