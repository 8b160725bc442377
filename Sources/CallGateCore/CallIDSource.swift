import DequeModule

/// Where the ids of new calls and meetings (the call log's `id`) come from. Service thread only.
public protocol CallIDSource: AnyObject {
    /// The next id, or nil when none can be given now (the op is then refused).
    func next() -> Int64?
    /// Ids up to `id` were given out before (calls restored from the store): never give them.
    func skip(past id: Int64)
}

/// A single process's ids: one counter, continued after the last id in the store.
public final class CountingCallIDs: CallIDSource {
    private var last: Int64 = 0

    public init() {}

    public func next() -> Int64? {
        guard last < Int64.max else { return nil }
        last += 1
        return last
    }

    public func skip(past id: Int64) {
        last = max(last, id)
    }
}

/// Cluster mode's ids: blocks reserved from the store every node shares (PostgreSQL's
/// `call_ids`), so that no two nodes give the same id. When fewer than `lowWater` ids are left,
/// `reserve` is called for one more block (once at a time); the server reserves it off the
/// service thread and hands it to `add`, or calls `reservationFailed`. With none left, `next`
/// gives nil until a block arrives.
public final class ReservedCallIDs: CallIDSource {
    private var blocks = Deque<ClosedRange<Int64>>()
    private var requested = false
    private let lowWater: Int64
    private let reserve: () -> Void

    /// Ids that asks for a block through `reserve` whenever fewer than `lowWater` are left.
    public init(lowWater: Int64 = 32, reserve: @escaping () -> Void) {
        self.lowWater = lowWater
        self.reserve = reserve
    }

    /// How many ids are left.
    public var remaining: Int64 {
        blocks.reduce(0) { $0 + Int64($1.count) }
    }

    public func next() -> Int64? {
        defer { refillIfLow() }
        guard let block = blocks.popFirst() else { return nil }
        if block.lowerBound < block.upperBound {
            blocks.prepend(block.lowerBound + 1...block.upperBound)
        }
        return block.lowerBound
    }

    public func skip(past id: Int64) {
        while let block = blocks.first, block.lowerBound <= id {
            blocks.removeFirst()
            if block.upperBound > id {
                blocks.prepend(id + 1...block.upperBound)
            }
        }
    }

    /// A block reserved for this node.
    public func add(_ block: ClosedRange<Int64>) {
        requested = false
        blocks.append(block)
        refillIfLow()
    }

    /// The last reservation failed: the next `next` asks again.
    public func reservationFailed() {
        requested = false
    }

    private func refillIfLow() {
        guard !requested, remaining < lowWater else { return }
        requested = true
        reserve()
    }
}
