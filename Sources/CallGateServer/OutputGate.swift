/// Holds outgoing frames back until the store writes they depend on are durable, and lets
/// them go in the order they were produced.
///
/// Once a batch of writes is submitted, every output produced after it waits for that batch
/// (and any earlier one) to commit; while nothing is pending, output goes out at once. So a
/// client never sees a reply or push whose call state could be lost by a crash, and no output
/// overtakes another. Service thread only.
struct OutputGate<Item> {
    /// The sequence number of the last batch submitted.
    private(set) var submitted: UInt64 = 0
    /// The highest sequence number known to be durable.
    private(set) var committed: UInt64 = 0
    private var held: [(barrier: UInt64, item: Item)] = []
    private var head = 0

    /// Whether output may go out now.
    var isOpen: Bool {
        committed >= submitted && head == held.count
    }

    /// How many outputs wait.
    var heldCount: Int {
        held.count - head
    }

    /// Records that batch `sequence` was submitted; later output waits for it.
    mutating func submitted(_ sequence: UInt64) {
        submitted = max(submitted, sequence)
    }

    /// Keeps `item` until what was submitted so far commits; returns it instead when it may go now.
    mutating func pass(_ item: Item) -> Item? {
        if isOpen {
            return item
        }
        held.append((submitted, item))
        return nil
    }

    /// Records that every batch up to `sequence` is durable and returns the outputs that may now
    /// go, in the order they were produced.
    mutating func committed(upTo sequence: UInt64) -> [Item] {
        committed = max(committed, sequence)
        var released: [Item] = []
        while head < held.count, held[head].barrier <= committed {
            released.append(held[head].item)
            head += 1
        }
        if head == held.count {
            held.removeAll(keepingCapacity: true)
            head = 0
        }
        return released
    }
}
