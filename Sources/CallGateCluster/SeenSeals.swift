import DequeModule

/// The bus messages a node heard in the last `maxAge`, by their MAC (`BusSignature.Digest`):
/// a message heard again is a replay (another client of Redis published a copy, or a push under
/// a seq of its own), and is refused. Older messages need no record: their seal is stale.
///
/// Each node hears each message once (one subscription; a push once per user channel), so the
/// record costs a set entry per message heard in the window. Service thread only.
public struct SeenSeals {
    private var digests: Set<BusSignature.Digest> = []
    /// The digests in the order they were heard, with their stamps, to forget them.
    private var order: Deque<(stamp: Int64, digest: BusSignature.Digest)> = []
    private let maxAgeMillis: Int64

    /// A record of the messages sealed within `maxAge` of now.
    public init(maxAge: Duration) {
        maxAgeMillis = maxAge.microseconds / 1000
    }

    /// How many messages are remembered.
    public var count: Int { digests.count }

    /// Records the message `opened` at `now` (Unix ms); false when it was heard already.
    public mutating func insert(_ opened: BusSignature.Opened, now: Int64) -> Bool {
        while let first = order.first, now - first.stamp > maxAgeMillis {
            digests.remove(first.digest)
            order.removeFirst()
        }
        guard digests.insert(opened.digest).inserted else { return false }
        order.append((opened.stamp, opened.digest))
        return true
    }
}
