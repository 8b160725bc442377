/// Finds dead peers of a server context with one periodic timer, never one per connection.
///
/// Each tick visits one bucket of a `LivenessSweep` (1/16 of the sockets) and applies the
/// `LivenessPolicy`: pings quiet sockets, drops dead ones through `LWSContext.drop`. lws's own
/// per-connection validity timers stay off (see `LWSContext.idlePolicy`). Service thread only;
/// created by the context for its first server connection when `livenessInterval` is set.
final class LivenessMonitor {
    static let bucketCount = 16

    let policy: LivenessPolicy
    /// The payload of every ping, behind `LWS_PRE` headroom: one byte, because lws 4.1 peers
    /// do not answer an empty ping. Shared by the connections of this context, which write one
    /// after another on its service thread.
    let pingFrame = OutboundFrame([UInt8(ascii: "p")])
    private unowned let context: LWSContext
    private var sweep = LivenessSweep(bucketCount: LivenessMonitor.bucketCount)
    private var timer: LoopTimer?
    private var ticking = false

    init(context: LWSContext, interval: Duration) {
        self.context = context
        policy = LivenessPolicy(intervalMillis: max(8, interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        timer = context.makeTimer { [unowned self] in self.tick() }
    }

    /// Microseconds between ticks: a whole round of buckets takes one visit period.
    private var tickMicroseconds: Int64 {
        max(1000, policy.visitPeriodMillis * 1000 / Int64(sweep.bucketCount))
    }

    /// Starts watching a newly opened connection.
    func track(_ connection: WebSocketConnection) {
        sweep.insert(connection.id)
        if !ticking {
            ticking = true
            timer?.schedule(afterMicroseconds: tickMicroseconds)
        }
    }

    private func tick() {
        let now = MonotonicClock.millis()
        var dead: [WebSocketConnection] = []
        sweep.visitNextBucket { id in
            guard let connection = context.liveConnections[id], !connection.closeReported else { return false }
            let verdict = policy.verdict(
                idleMillis: now - connection.lastHeardMillis, pinged: connection.pingSent,
                closingForMillis: connection.closeRequestedMillis.map { now - $0 })
            switch verdict {
            case .keep:
                return true
            case .ping:
                connection.ping()
                return true
            case .drop:
                dead.append(connection)
                return false
            }
        }
        for connection in dead {
            context.drop(connection)
        }
        ticking = sweep.count > 0
        if ticking {
            timer?.schedule(afterMicroseconds: tickMicroseconds)
        }
    }
}
