/// A FIFO of outbound frames for one connection, with amortised O(1) push and pop.
struct FrameQueue {
    private var frames: [OutboundFrame] = []
    private var head = 0

    var count: Int { frames.count - head }
    var isEmpty: Bool { head == frames.count }

    mutating func push(_ frame: OutboundFrame) {
        frames.append(frame)
    }

    mutating func pop() -> OutboundFrame? {
        guard head < frames.count else { return nil }
        let frame = frames[head]
        head += 1
        if head == frames.count {
            frames = []
            head = 0
        } else if head >= 64 && head * 2 >= frames.count {
            frames.removeFirst(head)
            head = 0
        }
        return frame
    }

    mutating func removeAll() {
        frames.removeAll()
        head = 0
    }
}
