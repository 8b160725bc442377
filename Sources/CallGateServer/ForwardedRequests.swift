import CallGateCore

/// Where the answer to an op forwarded from another node goes back: that node, and the number
/// it gave the op.
struct ForwardTicket: Hashable {
    let node: String
    let number: UInt64
}

/// The ops this node forwarded to the nodes that own their calls, waiting for their answers:
/// each is settled once, by its answer, by `expire` when its time is up, or by `abandon` when
/// its owner left the cluster. Every forward waits the same timeout, so they expire in the
/// order they were opened; one whose owner said its answer waits for its store (`hold`) waits
/// on for the same longer bound, as a local reply waits for the same write. Service thread only.
struct ForwardedRequests {
    /// One op waiting for its answer.
    struct Pending {
        /// The device that asked.
        let connection: ConnectionID
        /// The request's `id`.
        let requestID: String
        /// The node it went to.
        let owner: String
        /// When it is given up, on the Core's monotonic milliseconds: the forward timeout after
        /// it was sent, or once held, the held bound after that.
        var deadline: Int64
        /// Whether the owner ran it and its answer waits for the owner's store.
        var held = false
    }

    private var pending: [UInt64: Pending] = [:]
    /// Tickets not held, in the order they were opened (their deadlines' order), from its head.
    private var waiting = TicketQueue()
    /// Held tickets, in the order they were held (their deadlines' order), from its head.
    private var holding = TicketQueue()
    /// Starts at a random number, so that a late answer meant for an earlier run of this node
    /// (under the same node id) settles nothing here.
    private var lastTicket = UInt64.random(in: 0..<(1 << 48))

    /// How many ops wait.
    var count: Int { pending.count }

    /// Records an op sent to `owner`; returns the number its answer comes back under.
    mutating func open(_ connection: ConnectionID, requestID: String, owner: String, deadline: Int64) -> UInt64 {
        lastTicket += 1
        pending[lastTicket] = Pending(connection: connection, requestID: requestID, owner: owner, deadline: deadline)
        waiting.append(lastTicket)
        return lastTicket
    }

    /// Settles `ticket`: the op it names, nil when it was settled already (answered, expired).
    mutating func close(_ ticket: UInt64) -> Pending? {
        let settled = pending.removeValue(forKey: ticket)
        if pending.isEmpty {
            waiting.removeAll()
            holding.removeAll()
        }
        return settled
    }

    /// The owner of `ticket` ran it and its answer waits for its store: it waits on until
    /// `deadline`, for the answer or for the owner to leave.
    mutating func hold(_ ticket: UInt64, until deadline: Int64) {
        guard var op = pending[ticket], !op.held else { return }
        op.held = true
        op.deadline = deadline
        pending[ticket] = op
        holding.append(ticket)
    }

    /// Settles every op sent to one of `owners` (nodes that left the cluster), and returns them.
    mutating func abandon(owners: Set<String>) -> [Pending] {
        let tickets = pending.filter { owners.contains($0.value.owner) }.keys.sorted()
        return tickets.compactMap { close($0) }
    }

    /// Settles every op whose deadline is at or before `now`, and returns them.
    mutating func expire(now: Int64) -> [Pending] {
        Self.expire(&pending, in: &waiting, held: false, now: now) + Self.expire(&pending, in: &holding, held: true, now: now)
    }

    /// Settles the ops of `queue` (held or not) whose deadline passed, in order.
    private static func expire(
        _ pending: inout [UInt64: Pending], in queue: inout TicketQueue, held: Bool, now: Int64
    ) -> [Pending] {
        var expired: [Pending] = []
        while let ticket = queue.first {
            if let op = pending[ticket], op.held == held {
                guard op.deadline <= now else { break }
                expired.append(op)
                pending[ticket] = nil
            }
            queue.dropFirst()
        }
        return expired
    }

    /// The earliest deadline of an op still waiting, nil when none waits.
    var nextDeadline: Int64? {
        let unheld = waiting.tickets.lazy.compactMap { self.pending[$0] }.first { !$0.held }?.deadline
        let held = holding.tickets.lazy.compactMap { self.pending[$0] }.first { $0.held }?.deadline
        return [unheld, held].compactMap { $0 }.min()
    }
}

/// Tickets in order, taken from the front: an array and the index of its first live element,
/// compacted now and then.
private struct TicketQueue {
    private var items: [UInt64] = []
    private var head = 0

    /// The tickets from the front on.
    var tickets: ArraySlice<UInt64> { items[head...] }

    var first: UInt64? { head < items.count ? items[head] : nil }

    mutating func append(_ ticket: UInt64) {
        items.append(ticket)
    }

    mutating func dropFirst() {
        head += 1
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
