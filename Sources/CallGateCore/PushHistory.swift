import CallGateProtocol

/// A point in one user's push sequence.
public struct HistoryPosition: Hashable, Sendable {
    /// The sequence's epoch.
    public var epoch: String
    /// A push's number in it; 0 for the point before the first push.
    public var seq: UInt64

    /// Makes a position.
    public init(epoch: String, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }
}

/// One push as the history keeps it: its frame without `seq` (see `Push.encodedHead`), one
/// copy shared by every user it went to, with the event and session it is about.
public final class HistoryFrame {
    /// The frame's bytes up to where `,"seq":N}` goes.
    public let head: [UInt8]
    /// The push's event.
    public let event: EventName
    /// The call or session the push is about.
    public let sessionId: String
    /// How many users' histories hold this frame; the store's bookkeeping.
    var holders = 0

    /// Wraps a frame head.
    public init(head: [UInt8], event: EventName, sessionId: String) {
        self.head = head
        self.event = event
        self.sessionId = sessionId
    }

    /// Encodes `push`'s head.
    public convenience init(_ push: Push) {
        self.init(head: push.encodedHead(), event: push.event, sessionId: push.sessionId)
    }
}

/// A kept push: its number, its frame, and the device it was not sent to.
public struct HistoryEntry {
    /// Its number in the user's sequence.
    public let seq: UInt64
    /// Its frame, without `seq`.
    public let frame: HistoryFrame
    /// The device that did not get it, nil for none.
    public let excluding: ConnectionID?

    /// Makes an entry.
    public init(seq: UInt64, frame: HistoryFrame, excluding: ConnectionID?) {
        self.seq = seq
        self.frame = frame
        self.excluding = excluding
    }
}

/// The bounds of an `InMemoryPushHistory`: every one of them a documented server limit.
public struct PushHistoryLimits: Hashable, Sendable {
    /// How long a push is kept, in milliseconds (`--history-seconds`).
    public var windowMillis: Int64
    /// The most pushes kept per user; older ones go first (`--history-per-user`).
    public var maxEntriesPerUser: Int
    /// The most bytes the history may hold, frames and bookkeeping; the oldest pushes of all
    /// users go first (`--history-bytes`).
    public var maxBytes: Int

    /// Makes limits.
    public init(windowMillis: Int64 = 120_000, maxEntriesPerUser: Int = 256, maxBytes: Int = 64 << 20) {
        self.windowMillis = windowMillis
        self.maxEntriesPerUser = maxEntriesPerUser
        self.maxBytes = maxBytes
    }
}
