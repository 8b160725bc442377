import CallGateCore
import CallGateProtocol
import Logging

/// Draining: from its first moment the hub refuses new sockets (and readiness says 503), then
/// it closes the sockets it holds spread over the drain window, each with 1012 and the
/// reconnect hint after the output already waiting for it. Service thread only.
extension ConnectionHub {
    /// Why the hub takes no socket while it drains; nil when it does not.
    var drainRefusal: String? {
        drain.map { $0.isOver ? "this node has drained: it takes no socket until it restarts" : "this node is draining: connect to another one" }
    }

    /// Begins draining over `window`, or joins the drain under way; `finished` is called on the
    /// service thread once it is over.
    func beginDrain(over window: Duration, finished: @escaping () -> Void) {
        assertServiceThread()
        if let drain {
            drain.whenOver(finished)
            return
        }
        let plan = DrainPlan(
            startedAt: clock.monotonicMillis(), windowMillis: window.wholeMilliseconds, sockets: connections.count)
        let drain = SocketDrain(plan: plan, sockets: Array(connections.keys), timer: makeTimer { [unowned self] in
            drainTick()
        })
        drain.whenOver(finished)
        self.drain = drain
        metrics.drainBegan()
        logger.notice("draining", metadata: ["sockets": "\(plan.sockets)", "seconds": "\(window.components.seconds)"])
        drainTick()
    }

    /// Closes the sockets due now; after the window, every one left (also those that opened as
    /// the drain began). Ends the drain when no socket is left or its grace passed.
    func drainTick() {
        guard let drain, !drain.isOver else { return }
        let now = clock.monotonicMillis()
        while let id = drain.nextDue(now: now, isOpen: { connections[$0] != nil }) {
            closeForDrain(id)
        }
        if now >= drain.plan.endsAt {
            for id in drain.closeLate(connections.keys) {
                closeForDrain(id)
            }
        }
        if connections.isEmpty || now >= drain.plan.endsAt + SocketDrain.closingGraceMillis {
            logger.notice("drained", metadata: ["left": "\(connections.count)"])
            drain.end()
            return
        }
        let untilEnd = (drain.plan.endsAt - now) * 1000
        _ = drain.timer.schedule(afterMicroseconds: untilEnd > 0 ? min(SocketDrain.tickMicroseconds, untilEnd) : SocketDrain.tickMicroseconds)
    }

    private func closeForDrain(_ id: ConnectionID) {
        delegate?.closeAfterOutput(id, code: CloseCode.serviceRestart, reason: ReconnectHint.gateway.reason)
    }
}
