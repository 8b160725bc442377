import CallGateCore
import CallGateProtocol

/// How many of the sockets a drain started with are due to be closed at a moment of it: the
/// closes are spread evenly over the window, so that the clients land on the other nodes at a
/// steady rate rather than all at once. Pure; any thread.
struct DrainPlan: Equatable {
    /// When the drain began (monotonic milliseconds).
    let startedAt: Int64
    /// How long the closes are spread over, in milliseconds (0: all at once).
    let windowMillis: Int64
    /// The sockets open when the drain began.
    let sockets: Int

    /// When the window ends (monotonic milliseconds).
    var endsAt: Int64 { startedAt + windowMillis }

    /// How many of ``sockets`` are due by `now`: the share of the window passed, rounded up, so
    /// the first closes go at once and the last at the window's end.
    func due(now: Int64) -> Int {
        guard windowMillis > 0 else { return sockets }
        let elapsed = min(max(now - startedAt, 0), windowMillis)
        return Int((Int64(sockets) * elapsed + windowMillis - 1) / windowMillis)
    }
}

/// A drain in progress: the node takes no new socket, and closes those it holds a few at a time
/// over the window (``DrainPlan``) with 1012 and the ``ReconnectHint``. It is over once no
/// socket is left, or ``closingGraceMillis`` after the window if some close handshakes never
/// end. Owned by the hub (`ConnectionHub+Drain`); service thread only.
final class SocketDrain {
    /// How often the next batch is closed, in microseconds.
    static let tickMicroseconds: Int64 = 100_000
    /// How long after the window the drain waits for the last sockets to finish closing.
    static let closingGraceMillis: Int64 = 5_000

    let plan: DrainPlan
    /// The sockets open when the drain began that it has not handled yet, oldest last.
    private var pending: [ConnectionID]
    /// The sockets the drain asked to close.
    private(set) var closing: Set<ConnectionID> = []
    /// The sockets of `plan.sockets` handled: closed by the drain, or gone by themselves first.
    private(set) var handled = 0
    /// Told once when the drain is over.
    private var waiters: [() -> Void] = []
    private(set) var isOver = false
    /// Fires the next batch.
    let timer: any DeadlineTimer

    /// A drain of `sockets` (closed oldest first) following `plan`, ticking on `timer`.
    init(plan: DrainPlan, sockets: [ConnectionID], timer: any DeadlineTimer) {
        self.plan = plan
        pending = sockets.sorted(by: >)
        self.timer = timer
    }

    /// The next socket of those the drain began with that is due at `now` and still `isOpen`,
    /// counting those gone meanwhile as handled; nil when none is due.
    func nextDue(now: Int64, isOpen: (ConnectionID) -> Bool) -> ConnectionID? {
        let due = plan.due(now: now)
        while handled < due, let id = pending.popLast() {
            handled += 1
            if isOpen(id) {
                closing.insert(id)
                return id
            }
        }
        return nil
    }

    /// The sockets among `open` that the drain did not close (ones that opened while it began),
    /// marked closed by it now: the end of the window closes them.
    func closeLate(_ open: some Sequence<ConnectionID>) -> [ConnectionID] {
        var late: [ConnectionID] = []
        for id in open where !closing.contains(id) {
            closing.insert(id)
            late.append(id)
        }
        return late
    }

    /// Calls `finished` once the drain is over (at once when it is).
    func whenOver(_ finished: @escaping () -> Void) {
        if isOver {
            finished()
        } else {
            waiters.append(finished)
        }
    }

    /// Ends the drain: tells every waiter, once.
    func end() {
        guard !isOver else { return }
        isOver = true
        let told = waiters
        waiters.removeAll()
        for waiter in told {
            waiter()
        }
    }
}
