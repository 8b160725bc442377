import CallGateCore
import LWS

/// Where the answer to an op forwarded from another node goes back: that node, and the number
/// it gave the op.
struct ForwardTicket: Hashable {
    let node: String
    let number: UInt64
}

/// The ops this node forwarded to the nodes that own their calls, waiting for their answers:
/// each is settled once, by its answer, by `expire` when its time is up, or by `abandon` when
/// its owner left the cluster. One whose owner said its answer waits for its store (`hold`)
/// waits on for a longer bound, as a local reply waits for the same write. Their deadlines
/// are timers of the Core's `TimerQueue`. Service thread only.
struct ForwardedRequests {
    /// Who waits for a forwarded op's answer.
    enum Asker {
        /// A device's request: its connection and the request's `id`.
        case device(ConnectionID, requestID: String)
        /// An admin API request on a call (`CallCommand`).
        case admin(ServiceThreadBox<HTTPExchange>)
        /// This node's own command (call waiting), which `answered` carries on.
        case node(answered: (HTTPResponse) -> Void)
    }

    /// One op waiting for its answer.
    struct Pending {
        /// Who asked.
        let asker: Asker
        /// The node it went to.
        let owner: String
        /// Its deadline's timer: the forward timeout after it was sent, or once held, the held
        /// bound after that.
        var timer: TimerID
        /// Whether the owner ran it and its answer waits for the owner's store.
        var held = false
    }

    private var pending: [UInt64: Pending] = [:]
    /// The deadline of every op waiting, by ticket.
    private var deadlines = TimerQueue<UInt64>()
    /// Starts at a random number, so that a late answer meant for an earlier run of this node
    /// (under the same node id) settles nothing here.
    private var lastTicket = UInt64.random(in: 0..<(1 << 48))

    /// How many ops wait.
    var count: Int { pending.count }

    /// Records an op of `asker` sent to `owner`; returns the number its answer comes back under.
    mutating func open(_ asker: Asker, owner: String, deadline: Int64) -> UInt64 {
        lastTicket += 1
        let timer = deadlines.schedule(lastTicket, at: deadline)
        pending[lastTicket] = Pending(asker: asker, owner: owner, timer: timer)
        return lastTicket
    }

    /// Settles `ticket`: the op it names, nil when it was settled already (answered, expired).
    mutating func close(_ ticket: UInt64) -> Pending? {
        guard let settled = pending.removeValue(forKey: ticket) else { return nil }
        deadlines.cancel(settled.timer)
        return settled
    }

    /// The owner of `ticket` ran it and its answer waits for its store: it waits on until
    /// `deadline`, for the answer or for the owner to leave.
    mutating func hold(_ ticket: UInt64, until deadline: Int64) {
        guard var op = pending[ticket], !op.held else { return }
        deadlines.cancel(op.timer)
        op.timer = deadlines.schedule(ticket, at: deadline)
        op.held = true
        pending[ticket] = op
    }

    /// Settles every op sent to one of `owners` (nodes that left the cluster), and returns them.
    mutating func abandon(owners: Set<String>) -> [Pending] {
        let tickets = pending.filter { owners.contains($0.value.owner) }.keys.sorted()
        return tickets.compactMap { close($0) }
    }

    /// Settles every op whose deadline is at or before `now`, and returns them, earliest first.
    mutating func expire(now: Int64) -> [Pending] {
        var expired: [Pending] = []
        while let ticket = deadlines.popDue(now: now) {
            if let op = pending.removeValue(forKey: ticket) {
                expired.append(op)
            }
        }
        return expired
    }

    /// The earliest deadline of an op still waiting, nil when none waits.
    mutating func nextDeadline() -> Int64? {
        deadlines.nextDeadline()
    }
}
