import CLibWebSockets

/// A one-shot timer on the service thread's event loop (an lws `sul`), re-armable.
///
/// Create it with `LWSContext.makeTimer`; schedule, cancel and fire all happen on the service thread.
public final class LoopTimer {
    private let node: UnsafeMutablePointer<cg_timer>
    private let fire: () -> Void
    private unowned let context: LWSContext
    private var alive = true

    init(context: LWSContext, fire: @escaping () -> Void) {
        self.context = context
        self.fire = fire
        node = .allocate(capacity: 1)
        cg_zero(node, MemoryLayout<cg_timer>.size)
        node.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        invalidate()
        node.deallocate()
    }

    /// Fires once after `microseconds` (replacing any earlier schedule).
    public func schedule(afterMicroseconds microseconds: Int64) {
        guard alive, let lwsContext = context.lwsContext else { return }
        let sul = UnsafeMutableRawPointer(node).assumingMemoryBound(to: lws_sorted_usec_list_t.self)
        lws_sul_schedule(lwsContext, 0, sul, loopTimerFired, max(1, microseconds))
    }

    /// Stops a pending fire.
    public func cancel() {
        guard alive else { return }
        let sul = UnsafeMutableRawPointer(node).assumingMemoryBound(to: lws_sorted_usec_list_t.self)
        lws_sul_cancel(sul)
    }

    /// Cancels for good; called before the lws context goes away.
    func invalidate() {
        cancel()
        alive = false
    }

    fileprivate func fired() {
        fire()
    }
}

/// The C entry point of every `LoopTimer`: the sul is the first member of its `cg_timer` node.
private func loopTimerFired(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let node = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: cg_timer.self)
    guard let owner = node.pointee.owner else { return }
    Unmanaged<LoopTimer>.fromOpaque(owner).takeUnretainedValue().fired()
}
