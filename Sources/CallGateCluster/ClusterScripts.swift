/// The Lua scripts of cluster mode: each runs atomically in Redis, which is what makes a claim or
/// a heartbeat race-free across nodes.
enum ClusterScripts {
    /// Renews this node's heartbeat lease unless another process holds its id, and reports which
    /// nodes of the set are live and which have let their lease lapse.
    /// KEYS: the node's key, the node set. ARGV: `"<incarnation>|<number>"`, the lease in ms, the
    /// node id, the node key prefix. Returns `{1, live ids, lapsed ids}`, or `{0, holder}` when
    /// another incarnation holds the id.
    static let heartbeat = RedisScript(name: "heartbeat", source: """
        local current = redis.call('GET', KEYS[1])
        if current and current ~= ARGV[1] then return {0, current} end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('SADD', KEYS[2], ARGV[3])
        local live, lapsed = {}, {}
        for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
          if redis.call('EXISTS', ARGV[4] .. id) == 1 then live[#live + 1] = id else lapsed[#lapsed + 1] = id end
        end
        return {1, live, lapsed}
        """)

    /// Gives back a lease claimed at start by a start that then failed: deletes the node's key if
    /// this incarnation holds it (the node set is left alone). KEYS: the node's key. ARGV:
    /// `"<incarnation>|<number>"`.
    static let release = RedisScript(name: "release", source: """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)

    /// Leaves the cluster: deletes this node's key (if this incarnation holds it) and its set
    /// entry. KEYS: the node's key, the node set. ARGV: `"<incarnation>|<number>"`, the node id.
    static let leave = RedisScript(name: "leave", source: """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('DEL', KEYS[1])
        redis.call('SREM', KEYS[2], ARGV[2])
        return 1
        """)

    /// Claims call or session `sessionId` for this node unless some node owns it already, and
    /// says who owns it: the atomic creation of a meeting that two nodes are joined to at once.
    /// KEYS: the call's key. ARGV: the node id, the record's lifetime in ms. Returns the owner.
    static let claimCall = RedisScript(name: "claim-call", source: """
        if redis.call('HSETNX', KEYS[1], 'owner', ARGV[1]) == 1 then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return ARGV[1]
        end
        return redis.call('HGET', KEYS[1], 'owner')
        """)
}
