import CallGateCore

/// Where the answer to an op forwarded from another node goes back: that node, and the number
/// it gave the op.
struct ForwardTicket: Hashable {
    let node: String
    let number: UInt64
}

/// The ops this node forwarded to the nodes that own their calls, waiting for their answers:
/// each is settled once, by its answer, by `expire` when its time is up, or by `abandon` when
/// its owner left the cluster. Every forward waits the same timeout, so they expire in the order
/// they were opened; one whose owner said its answer waits for its store (`hold`) no longer
/// expires, as a local reply waits for the same write. Service thread only.
struct ForwardedRequests {
    /// One op waiting for its answer.
    struct Pending {
        /// The device that asked.
        let connection: ConnectionID
        /// The request's `id`.
        let requestID: String
        /// The node it went to.
        let owner: String
        /// When it is given up, on the Core's monotonic milliseconds.
        let deadline: Int64
        /// Whether the owner ran it and its answer waits for the owner's store.
        var held = false
    }

    private var pending: [UInt64: Pending] = [:]
    /// Ticket numbers in the order they were opened (their deadlines' order), from `head` on.
    private var order: [UInt64] = []
    private var head = 0
    /// Starts at a random number, so that a late answer meant for an earlier run of this node
    /// (under the same node id) settles nothing here.
    private var lastTicket = UInt64.random(in: 0..<(1 << 48))

    /// How many ops wait.
    var count: Int { pending.count }

    /// Records an op sent to `owner`; returns the number its answer comes back under.
    mutating func open(_ connection: ConnectionID, requestID: String, owner: String, deadline: Int64) -> UInt64 {
        lastTicket += 1
        pending[lastTicket] = Pending(connection: connection, requestID: requestID, owner: owner, deadline: deadline)
        order.append(lastTicket)
        return lastTicket
    }

    /// Settles `ticket`: the op it names, nil when it was settled already (answered, expired).
    mutating func close(_ ticket: UInt64) -> Pending? {
        let settled = pending.removeValue(forKey: ticket)
        if pending.isEmpty {
            order.removeAll(keepingCapacity: true)
            head = 0
        }
        return settled
    }

    /// The owner of `ticket` ran it and its answer waits for its store: it waits on past its
    /// deadline, for the answer or for the owner to leave.
    mutating func hold(_ ticket: UInt64) {
        pending[ticket]?.held = true
    }

    /// Settles every op sent to one of `owners` (nodes that left the cluster), and returns them.
    mutating func abandon(owners: Set<String>) -> [Pending] {
        let tickets = pending.filter { owners.contains($0.value.owner) }.keys.sorted()
        return tickets.compactMap { close($0) }
    }

    /// Settles every op whose deadline is at or before `now`, but those held, and returns them.
    mutating func expire(now: Int64) -> [Pending] {
        var expired: [Pending] = []
        while head < order.count {
            guard let waiting = pending[order[head]], !waiting.held else {
                head += 1
                continue
            }
            guard waiting.deadline <= now else { break }
            expired.append(waiting)
            pending[order[head]] = nil
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return expired
    }

    /// The earliest deadline of an op still waiting and not held, nil when none waits.
    var nextDeadline: Int64? {
        order[head...].lazy.compactMap { self.pending[$0] }.first { !$0.held }?.deadline
    }
}
