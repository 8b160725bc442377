import CLibWebSockets

/// A one-shot timer on the service thread's event loop, re-armable.
///
/// It is a libev timer on the context's own loop rather than an lws `sul`: lws 4.1's libev glue
/// cannot move its timer earlier once armed, so an lws timer can fire late. Create it with
/// `LWSContext.makeTimer`; schedule, cancel and fire all happen on the service thread.
public final class LoopTimer {
    private let watcher: UnsafeMutablePointer<ev_timer>
    private let fire: () -> Void
    private unowned let context: LWSContext
    private var alive = true

    init(context: LWSContext, fire: @escaping () -> Void) {
        self.context = context
        self.fire = fire
        watcher = .allocate(capacity: 1)
        cg_zero(watcher, MemoryLayout<ev_timer>.size)
        cg_ev_timer_init(watcher, loopTimerFired, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        invalidate()
        watcher.deallocate()
    }

    /// Fires once after `microseconds` (replacing any earlier schedule); returns false when it
    /// cannot be armed: before the context runs, once it stops, or after `invalidate`.
    @discardableResult
    public func schedule(afterMicroseconds microseconds: Int64) -> Bool {
        guard alive, context.acceptsWrites, let loop = context.eventLoop else { return false }
        cg_ev_timer_arm(loop, watcher, Double(max(0, microseconds)) / 1_000_000)
        return true
    }

    /// Stops a pending fire.
    public func cancel() {
        guard alive, let loop = context.eventLoop else { return }
        cg_ev_timer_stop(loop, watcher)
    }

    /// Cancels for good; called before the event loop goes away.
    func invalidate() {
        cancel()
        alive = false
    }

    fileprivate func fired() {
        fire()
    }
}

/// The C entry point of every `LoopTimer`: the watcher's `data` is the timer.
private func loopTimerFired(_ loop: OpaquePointer?, _ watcher: UnsafeMutablePointer<ev_timer>?, _ events: Int32) {
    guard let owner = watcher?.pointee.data else { return }
    Unmanaged<LoopTimer>.fromOpaque(owner).takeUnretainedValue().fired()
}
