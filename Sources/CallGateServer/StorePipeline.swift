import CallGateCore
import CallGateProtocol
import DequeModule
import LWS

/// The path from a change to the output that may reveal it: the writer makes the Core's call log
/// changes and the group changes durable, in order, on its own thread; the gate holds back the
/// output that must not go out before them.
///
/// Durability before output: nothing a client hears about a call goes out before the call's
/// row is durable, its first ring included. Output of an outcome that wrote a call or a group
/// waits for that write, any answer about a call waits for the call's latest write while that
/// is not durable, and later output to the same socket waits behind it; so a call that a crash
/// loses is a call nobody heard of. The store behind the writer is any `CallLogStore` (SQLite,
/// PostgreSQL, or in memory), so another store or more writes in the same transaction change
/// nothing here. Service thread only, but for the writer's own thread.
final class StorePipeline {
    /// Applies the writes to the store on its own thread.
    let writer: CallLogWriter
    private var gate = OutputGate<OutputLane, HeldOutput, String>()
    /// Session id -> the sequence number of its latest write, until it is durable.
    private var pendingWrites: [String: UInt64] = [:]
    /// The last write handed to the writer.
    private var lastSubmitted: UInt64 = 0

    /// A pipeline over `writer`.
    init(writer: CallLogWriter) {
        self.writer = writer
    }

    /// Hands `logChanges`, `groupWrites` and the webhook messages reporting them to the writer,
    /// for one transaction. Returns the write that output revealing them must wait for: theirs
    /// when they change a call or a group, else 0 (none). Webhook messages hold no output back:
    /// no client sees them.
    func submit(_ logChanges: [CallLogRecord], groupWrites: [StoreWrite], webhookWrites: [StoreWrite] = []) -> UInt64 {
        guard !logChanges.isEmpty || !groupWrites.isEmpty || !webhookWrites.isEmpty else { return 0 }
        let sequence = writer.submit(groupWrites + logChanges.map(StoreWrite.call) + webhookWrites)
        lastSubmitted = sequence
        for record in logChanges {
            pendingWrites[record.sessionId] = sequence
        }
        return logChanges.isEmpty && groupWrites.isEmpty ? 0 : sequence
    }

    /// The write that any answer about `sessionId` must wait for: the call's latest write while
    /// that is not durable (so not even an error reply tells of a call or a status before the
    /// log has it), else 0.
    func barrier(concerning sessionId: String?) -> UInt64 {
        sessionId.flatMap { pendingWrites[$0] } ?? 0
    }

    /// The write that output repeating earlier output must wait for, not knowing what that
    /// revealed: the last one submitted, else 0 when it is durable already.
    var latestBarrier: UInt64 {
        lastSubmitted > gate.committed ? lastSubmitted : 0
    }

    /// Whether output to `connection` that waits for write `barrier` may go now, without the
    /// pipeline: that write is durable and nothing to the socket waits before it.
    func isClear(for connection: ConnectionID, after barrier: UInt64) -> Bool {
        gate.isClear(for: .socket(connection), after: barrier)
    }

    /// Lets `output` go now, or keeps it until write `barrier` is durable and the earlier output
    /// in its lane went; refuses it, keeping nothing, when its socket has `cap` outputs waiting
    /// already. `fence` says what becomes of it if its call is fenced out while it waits.
    func pass(
        _ output: HeldOutput, after barrier: UInt64, fence: OutputFence<HeldOutput, String>? = nil, cap: Int = .max
    ) -> Passage<HeldOutput> {
        gate.pass(output, to: output.lane, after: barrier, fence: fence, cap: output.connection == nil ? .max : cap)
    }

    /// The store fenced out the calls of `sessions` (another node owns them now): the output
    /// waiting that tells of them is dropped, or replaced where its fence says so. Returns how
    /// many outputs were dropped or replaced.
    @discardableResult
    func revoke(_ sessions: Set<String>) -> Int {
        guard !sessions.isEmpty else { return 0 }
        return gate.revoke(sessions)
    }

    /// The writer made everything up to `sequence` durable: returns the output that may now go,
    /// in the order it was produced.
    func committed(upTo sequence: UInt64) -> [HeldOutput] {
        if !pendingWrites.isEmpty {
            pendingWrites = pendingWrites.filter { $0.value > sequence }
        }
        return gate.committed(upTo: sequence)
    }

    /// How many outputs wait for the store.
    var heldCount: Int {
        gate.heldCount
    }
}

/// What one output must not overtake: the earlier output to the same socket (or, for an answer
/// to a forwarded op, to the same device on another node), or to the same user's channel.
enum OutputLane: Hashable {
    case socket(ConnectionID)
    case user(String)
}

/// One output of the service that the pipeline may hold back. The rare cases are boxed
/// (`indirect`), so a frame, the output of every delivery, is copied as two words and a tag.
enum HeldOutput {
    /// A frame for a socket (dropped if the socket closed meanwhile).
    case frame(ConnectionID, OutboundFrame)
    /// Closing a socket with a code, after the frames before it.
    indirect case close(ConnectionID, code: UInt16, reason: String)
    /// An HTTP response.
    indirect case http(ServiceThreadBox<HTTPExchange>, HTTPResponse)
    /// The ring frames of an `initiateCall` taken up at `since` were handed to the sockets just
    /// before: performing it records the ring latency.
    case ringHandedOver(since: ContinuousClock.Instant)
    /// The reply to a request timed by `timing` was released just before: performing it
    /// records how long the op took to answer.
    case answered(OpTiming)
    /// Cluster mode: a push to a user, numbered, kept and published on their channel by Redis,
    /// for their devices on every node.
    indirect case publish(uid: String, ClusterPush)
    /// Cluster mode: the active-call entry of user `uid` (this node's calls that concern them,
    /// as JSON; nil: none), for devices connecting to other nodes.
    indirect case index(uid: String, calls: [UInt8]?)
    /// Cluster mode: group `guid` changed, for the other nodes (once the change is durable).
    case groupChanged(String)
    /// Cluster mode: the reply to an op that device `connection` of another node forwarded here.
    indirect case answer(ForwardTicket, connection: ConnectionID, frame: [UInt8])
    /// Cluster mode: the response to an admin API op on a call (`CallCommand`) that another
    /// node forwarded here.
    indirect case commandAnswer(ForwardTicket, HTTPResponse)

    /// The socket of this gateway it goes to; nil for output that goes elsewhere or a marker.
    var connection: ConnectionID? {
        switch self {
        case .frame(let id, _), .close(let id, _, _): id
        case .http, .ringHandedOver, .answered, .publish, .index, .answer, .commandAnswer, .groupChanged: nil
        }
    }

    /// What it must not overtake; nil for output that may overtake anything (but its barrier).
    var lane: OutputLane? {
        switch self {
        case .frame(let id, _), .close(let id, _, _), .answer(_, let id, _): .socket(id)
        case .publish(let uid, _), .index(let uid, _): .user(uid)
        case .http, .ringHandedOver, .answered, .groupChanged, .commandAnswer: nil
        }
    }
}

/// What becomes of a waiting output when the write it waits for is fenced out (cluster mode: the
/// call it tells of belongs to another node now, which speaks for it): a push is dropped, a
/// reply is replaced by `instead`. A class, so a waiting output without one carries a nil word.
final class OutputFence<Item, Subject: Hashable> {
    /// The call (session id) the output tells of.
    let subject: Subject
    /// What goes out instead; nil: nothing.
    let instead: Item?

    init(subject: Subject, instead: Item?) {
        self.subject = subject
        self.instead = instead
    }
}

/// What `OutputGate.pass` did with an output.
enum Passage<Item> {
    /// It may go now.
    case go(Item)
    /// It waits in the gate.
    case held
    /// Refused: its lane has `waiting` outputs waiting, its cap.
    case full(waiting: Int)
}

extension Passage: Equatable where Item: Equatable {}

/// Holds outgoing frames back until the store writes they depend on are durable, without
/// letting any output overtake an earlier one to the same socket.
///
/// An output waits when it carries state that must survive a crash (a call's row, a group
/// change: its `barrier` is the sequence number of that write) or when its socket already has
/// output waiting. Everything else goes out at once. Waiting outputs leave in the order they
/// were produced; one whose subject is revoked meanwhile goes as its fence says. Service thread
/// only.
struct OutputGate<Lane: Hashable, Item, Subject: Hashable> {
    /// One output waiting: the write it waits for, its lane, and its fence.
    private struct Waiting {
        let barrier: UInt64
        let lane: Lane?
        let item: Item
        let fence: OutputFence<Item, Subject>?
    }

    /// The highest sequence number known to be durable.
    private(set) var committed: UInt64 = 0
    /// The outputs waiting, oldest first: a deque, so a gate that never empties under a steady
    /// load still gives back what went out.
    private var held: Deque<Waiting> = []
    /// Lane -> how many of its outputs wait.
    private var waiting: [Lane: Int] = [:]

    /// How many outputs wait.
    var heldCount: Int {
        held.count
    }

    /// Whether an output in `lane` after write `barrier` would go at once: the write is durable
    /// and no output in the lane waits.
    func isClear(for lane: Lane, after barrier: UInt64) -> Bool {
        barrier <= committed && (waiting.isEmpty || waiting[lane] == nil)
    }

    /// Lets `item` (in `lane`, nil for one that overtakes nothing) go now, or keeps it until
    /// write `barrier` is durable and every earlier output in the same lane went; refuses it,
    /// keeping nothing, when `cap` outputs of its lane wait already. One lookup of the lane.
    mutating func pass(
        _ item: Item, to lane: Lane?, after barrier: UInt64, fence: OutputFence<Item, Subject>? = nil, cap: Int = .max
    ) -> Passage<Item> {
        guard let lane else {
            guard barrier > committed else { return .go(item) }
            held.append(Waiting(barrier: barrier, lane: nil, item: item, fence: fence))
            return .held
        }
        if let index = waiting.index(forKey: lane) {
            let count = waiting.values[index]
            guard count < cap else { return .full(waiting: count) }
            waiting.values[index] = count + 1
        } else if barrier <= committed {
            return .go(item)
        } else {
            guard cap > 0 else { return .full(waiting: 0) }
            waiting[lane] = 1
        }
        held.append(Waiting(barrier: barrier, lane: lane, item: item, fence: fence))
        return .held
    }

    /// Records that every write up to `sequence` is durable and returns the outputs that may now
    /// go, in the order they were produced.
    mutating func committed(upTo sequence: UInt64) -> [Item] {
        committed = max(committed, sequence)
        var released: [Item] = []
        while let first = held.first, first.barrier <= committed {
            held.removeFirst()
            released.append(first.item)
            if let lane = first.lane {
                leave(lane)
            }
        }
        return released
    }

    /// One output of `lane` stopped waiting; the lane is forgotten with its last one.
    private mutating func leave(_ lane: Lane) {
        guard let index = waiting.index(forKey: lane) else { return }
        if waiting.values[index] > 1 {
            waiting.values[index] -= 1
        } else {
            waiting.remove(at: index)
        }
    }

    /// The outputs waiting that tell of `subjects` go as their fences say: dropped (leaving
    /// their lane), or replaced in place (keeping their barrier and their turn). Returns how
    /// many there were.
    mutating func revoke(_ subjects: Set<Subject>) -> Int {
        var kept: Deque<Waiting> = []
        kept.reserveCapacity(held.count)
        var revoked = 0
        for entry in held {
            guard let fence = entry.fence, subjects.contains(fence.subject) else {
                kept.append(entry)
                continue
            }
            revoked += 1
            if let instead = fence.instead {
                kept.append(Waiting(barrier: entry.barrier, lane: entry.lane, item: instead, fence: nil))
            } else if let lane = entry.lane {
                leave(lane)
            }
        }
        guard revoked > 0 else { return 0 }
        held = kept
        return revoked
    }
}
