/// Timers in a binary min-heap keyed by deadline, with lazy cancellation: cancelling only
/// forgets the id (O(1)); the heap slot is dropped when it reaches the top, and the heap is
/// rebuilt when cancelled slots outnumber live ones so it stays bounded. Deadlines are
/// milliseconds on whatever clock the owner reads (the Core's monotonic clock, for its timers).
/// Not thread-safe: the owner's thread only (the service thread, for the Core's and the server's).
public struct TimerQueue<Event> {
    private var heap: [TimerEntry] = []
    private var pending: [TimerID: Event] = [:]
    private var lastGeneration: UInt64 = 0

    /// An empty queue.
    public init() {}

    /// How many timers are scheduled and not cancelled.
    public var count: Int { pending.count }

    /// Schedules `event` at `deadline` (milliseconds).
    @discardableResult
    public mutating func schedule(_ event: Event, at deadline: Int64) -> TimerID {
        lastGeneration += 1
        let id = TimerID(generation: lastGeneration)
        pending[id] = event
        heap.append(TimerEntry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    /// Cancels a timer; cancelling one that fired or was cancelled already does nothing.
    public mutating func cancel(_ id: TimerID) {
        guard pending.removeValue(forKey: id) != nil else { return }
        if heap.count > 64, heap.count > 2 * pending.count {
            rebuild()
        }
    }

    /// The earliest deadline of a live timer.
    public mutating func nextDeadline() -> Int64? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest live timer whose deadline is at or before `now`.
    public mutating func popDue(now: Int64) -> Event? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return pending.removeValue(forKey: top.id)
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, pending[top.id] == nil {
            removeTop()
        }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func rebuild() {
        heap.removeAll { pending[$0.id] == nil }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// The handle of a scheduled timer, used to cancel it. Ids are never reused, so a cancelled
/// timer's id cannot match a newer one.
public struct TimerID: Hashable, Comparable, Sendable {
    /// Increases with every timer scheduled.
    let generation: UInt64

    public static func < (lhs: TimerID, rhs: TimerID) -> Bool {
        lhs.generation < rhs.generation
    }
}

/// One slot of the timer heap: fire `id` at `deadline`. Ties fire in scheduling order.
struct TimerEntry: Comparable {
    /// Unix milliseconds.
    let deadline: Int64
    /// The timer this slot belongs to.
    let id: TimerID

    static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
    }
}

/// What the core does when a timer fires.
enum TimerEvent: Hashable {
    /// The ring timeout of a call passed.
    case ringTimeout(sessionId: String)
    /// The grace period of a user whose every device disconnected passed for this call.
    case grace(uid: String, sessionId: String)
    /// A finished call has been remembered long enough.
    case forget(sessionId: String)
    /// The only participant of a session has been alone in it for their idle timeout.
    case idle(sessionId: String)
    /// A session participant's last joined device disconnected a grace period ago.
    case sessionGrace(uid: String, sessionId: String)
    /// The history of a finished session has been kept long enough.
    case forgetHistory(sessionId: String)
    /// A meeting resumed after a restart has waited long enough for someone to join it again.
    case vacant(sessionId: String)
    /// A ringing call's caller is due to hear its ring progress.
    case ringProgress(sessionId: String)
    /// A user's devices are due to hear their missed-call count, or its quiet interval ended.
    case missedCalls(uid: String)
}
