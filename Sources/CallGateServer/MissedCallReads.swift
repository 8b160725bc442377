import CallGateProtocol
import DequeModule
import LWS

/// The missed-call counts read for devices on their way in, in batches: the reads asked for
/// wait in order until the read under way ends, and the next read takes them all (at most
/// `batchSize`); per user, how many reads run and the newest count this node heard of
/// meanwhile, which a read that began before it may miss; and each read's deadline, in the order
/// asked, under one timer. A read the store is slow to answer holds the next batch back; the
/// connects waiting in it go on at their deadlines, and hear their counts once read. Service
/// thread only.
final class MissedCallReads {
    /// The most users one read asks for.
    static let batchSize = 512

    /// Fires at the earliest deadline of a read still waiting (`GatewayService.missedCallReadsTimedOut`).
    let timer: LoopTimer
    private var reads: [String: (running: Int, heard: MissedCalls?)] = [:]
    /// Asked for, not yet read.
    private var queued: Deque<MissedCallRead> = []
    /// Every read not timed out yet, in the order asked (so by deadline).
    private var deadlines: Deque<MissedCallRead> = []
    /// Whether a batch is being read.
    private var reading = false

    init(timer: LoopTimer) {
        self.timer = timer
    }

    /// `read` is asked for; returns its deadline when the timer must be armed for it (no
    /// earlier read waits).
    func ask(_ read: MissedCallRead) -> Int64? {
        reads[read.uid, default: (0, nil)].running += 1
        queued.append(read)
        deadlines.append(read)
        return deadlines.count == 1 ? read.deadline : nil
    }

    /// The reads to read now, taken from the queue; nil while a batch is being read, or when
    /// none is asked for.
    func nextBatch() -> [MissedCallRead]? {
        guard !reading, !queued.isEmpty else { return nil }
        reading = true
        let batch = Array(queued.prefix(Self.batchSize))
        queued.removeFirst(batch.count)
        return batch
    }

    /// The batch being read was answered.
    func batchEnded() {
        reading = false
    }

    /// The reads whose deadline passed at `now` (answered ones left out), and the deadline of
    /// the earliest one still waiting.
    func expire(at now: Int64) -> (late: [MissedCallRead], next: Int64?) {
        var late: [MissedCallRead] = []
        while let first = deadlines.first, first.deadline <= now || first.isFinished {
            deadlines.removeFirst()
            if !first.isFinished {
                late.append(first)
            }
        }
        return (late, deadlines.first?.deadline)
    }

    /// This node heard of these counts: the reads under way keep the newest.
    func heard(_ counts: [String: MissedCalls]) {
        guard !reads.isEmpty else { return }
        for (uid, count) in counts where reads[uid] != nil {
            if (reads[uid]?.heard?.revision ?? -1) < count.revision {
                reads[uid]?.heard = count
            }
        }
    }

    /// A read of `uid`'s count ended: the newest count heard while reads of uid ran.
    func ended(_ uid: String) -> MissedCalls? {
        guard let read = reads[uid] else { return nil }
        if read.running > 1 {
            reads[uid]?.running -= 1
        } else {
            reads[uid] = nil
        }
        return read.heard
    }
}

/// A connect waiting for its user's missed-call count: answered once, by the read or by the
/// timeout, whichever comes first. Service thread only.
final class MissedCallRead {
    /// Whose count.
    let uid: String
    /// When it stops waiting for the store (the Core's monotonic ms).
    let deadline: Int64
    private var done: ((MissedCalls?) -> Void)?

    init(uid: String, deadline: Int64, _ done: @escaping (MissedCalls?) -> Void) {
        self.uid = uid
        self.deadline = deadline
        self.done = done
    }

    /// Whether it was answered.
    var isFinished: Bool {
        done == nil
    }

    /// Answers with `count` unless answered already; says whether it did.
    @discardableResult
    func finish(with count: MissedCalls?) -> Bool {
        guard let done else { return false }
        self.done = nil
        done(count)
        return true
    }
}
