import CallGateCore

/// Sockets waiting for `connect`, oldest first. Every socket gets the same timeout, so the
/// oldest entry always has the earliest deadline and a sweep only looks at the front.
struct AuthDeadlineQueue {
    private var entries: [(connection: ConnectionID, deadline: Int64)] = []
    private var head = 0

    mutating func append(_ connection: ConnectionID, deadline: Int64) {
        entries.append((connection, deadline))
    }

    /// The deadline of the oldest entry, if any.
    var nextDeadline: Int64? {
        head < entries.count ? entries[head].deadline : nil
    }

    /// Removes and returns every entry whose deadline is at or before `now`.
    mutating func popExpired(now: Int64) -> [ConnectionID] {
        var expired: [ConnectionID] = []
        while head < entries.count, entries[head].deadline <= now {
            expired.append(entries[head].connection)
            head += 1
        }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return expired
    }
}
