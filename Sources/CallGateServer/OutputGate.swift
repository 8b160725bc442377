import CallGateCore

/// Holds outgoing frames back until the store writes they depend on are durable, without
/// letting any output overtake an earlier one to the same socket.
///
/// An output waits when it carries state that must survive a crash (a terminal call status, a
/// group change: its `barrier` is the sequence number of that write) or when its socket already
/// has output waiting. Everything else goes out at once, so ringing never waits for the disk.
/// Waiting outputs leave in the order they were produced. Service thread only.
struct OutputGate<Item> {
    /// The highest sequence number known to be durable.
    private(set) var committed: UInt64 = 0
    private var held: [(barrier: UInt64, connection: ConnectionID?, item: Item)] = []
    private var head = 0
    /// Connection -> how many of its outputs wait.
    private var waiting: [ConnectionID: Int] = [:]

    /// How many outputs wait.
    var heldCount: Int {
        held.count - head
    }

    /// How many outputs to `connection` wait.
    func waitingCount(for connection: ConnectionID) -> Int {
        waiting[connection, default: 0]
    }

    /// Keeps `item` (for `connection`, nil for an HTTP answer) until write `barrier` is durable
    /// and every earlier output to the same connection went; returns it when it may go now.
    mutating func pass(_ item: Item, to connection: ConnectionID?, after barrier: UInt64) -> Item? {
        let queued = connection.map { waiting[$0] != nil } ?? false
        if barrier <= committed, !queued {
            return item
        }
        held.append((barrier, connection, item))
        if let connection {
            waiting[connection, default: 0] += 1
        }
        return nil
    }

    /// Records that every write up to `sequence` is durable and returns the outputs that may now
    /// go, in the order they were produced.
    mutating func committed(upTo sequence: UInt64) -> [Item] {
        committed = max(committed, sequence)
        var released: [Item] = []
        while head < held.count, held[head].barrier <= committed {
            let (_, connection, item) = held[head]
            released.append(item)
            if let connection {
                let left = (waiting[connection] ?? 1) - 1
                waiting[connection] = left > 0 ? left : nil
            }
            head += 1
        }
        if head == held.count {
            held.removeAll(keepingCapacity: true)
            head = 0
        }
        return released
    }
}
