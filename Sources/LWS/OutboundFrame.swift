import CLibWebSockets

/// One encoded text message, written once and shared by every connection it is queued on.
///
/// The payload sits after `LWS_PRE` bytes of headroom, where `lws_write` puts the frame header.
/// Server connections write it one after another on the service thread, so the shared headroom
/// is safe. A client connection must get a frame of its own: lws masks a client's payload in
/// place.
public final class OutboundFrame: @unchecked Sendable {
    let storage: UnsafeMutableRawBufferPointer
    /// Payload length in bytes.
    public let count: Int

    /// Copies `bytes` behind fresh headroom.
    public init(_ bytes: some Collection<UInt8>) {
        let pre = cg_lws_pre()
        count = bytes.count
        storage = .allocate(byteCount: pre + max(count, 1), alignment: 16)
        let payload = UnsafeMutableRawBufferPointer(rebasing: storage[pre...])
        _ = payload.initializeMemory(as: UInt8.self, from: bytes)
    }

    /// Copies `head` behind fresh headroom and lets `writeTail` write at most `tailCapacity`
    /// bytes after it, returning how many it wrote: one message of both, the tail written in
    /// place (a push numbered for one user) rather than made apart and copied.
    public init(_ head: [UInt8], tailCapacity: Int, writeTail: (UnsafeMutableRawBufferPointer) -> Int) {
        let pre = cg_lws_pre()
        storage = .allocate(byteCount: pre + max(head.count + tailCapacity, 1), alignment: 16)
        let payload = UnsafeMutableRawBufferPointer(rebasing: storage[pre...])
        payload.copyBytes(from: head)
        let written = writeTail(UnsafeMutableRawBufferPointer(rebasing: payload[head.count..<head.count + tailCapacity]))
        precondition((0...tailCapacity).contains(written), "a tail wrote \(written) of \(tailCapacity) bytes")
        count = head.count + written
    }

    deinit {
        storage.deallocate()
    }

    /// A copy of the payload, for whoever checks what was sent (tests, logs).
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: payload, count: count))
    }

    /// Pointer to the first payload byte, as `lws_write` wants it.
    var payload: UnsafeMutablePointer<UInt8> {
        storage.baseAddress!.advanced(by: cg_lws_pre()).assumingMemoryBound(to: UInt8.self)
    }
}

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
