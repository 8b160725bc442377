import CLibWebSockets
import Glibc

/// Liveness of server connections, on the service thread.
extension LWSContext {
    /// Has the liveness monitor watch a newly opened server connection (when configured).
    func watchLiveness(of connection: WebSocketConnection) {
        guard let interval = configuration.livenessInterval, !stopping else { return }
        if liveness == nil {
            liveness = LivenessMonitor(context: self, interval: interval)
        }
        liveness?.track(connection)
    }

    /// Drops a dead or stuck connection at once, without a close frame (its peer does not read).
    ///
    /// The delegate hears `webSocketDidClose` now, so the layer above applies its disconnect
    /// rules without waiting for lws's TCP teardown (lws half-closes the socket and may wait up
    /// to `timeout_secs` for the peer's FIN before it reports the close); lws's later close
    /// callback for this socket is ignored.
    func drop(_ connection: WebSocketConnection) {
        guard let wsi = connection.wsi, !connection.closeReported else { return }
        connection.detach()
        connection.closeReported = true
        webSocketDelegate?.webSocketDidClose(connection, error: nil)
        forget(connection)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
    }
}

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

/// When a quiet socket is pinged and when it counts as dead, for one liveness interval `L`.
///
/// Every socket is visited once per visit period `P = L/8`. A visit pings a socket that has
/// sent nothing (no message, no pong) for `L/2`, once, and drops one that has been quiet for
/// `L - P`; since visits come every `P`, a dead peer is dropped before it has been quiet for
/// `L`, and a live one has at least `L/4` to answer its ping. A socket whose close was asked
/// for more than `P` ago (its peer does not read, so the close frame cannot go out) is dropped
/// as well. Pure arithmetic, no clock.
struct LivenessPolicy: Equatable {
    let intervalMillis: Int64

    init(intervalMillis: Int64) {
        precondition(intervalMillis >= 8, "a liveness interval under 8 ms cannot be swept")
        self.intervalMillis = intervalMillis
    }

    /// How often each socket is visited.
    var visitPeriodMillis: Int64 { intervalMillis / 8 }
    /// Quiet time after which a socket is pinged.
    var pingAfterMillis: Int64 { intervalMillis / 2 }
    /// Quiet time after which a socket is dropped.
    var dropAfterMillis: Int64 { intervalMillis - visitPeriodMillis }

    /// The verdict for a socket quiet for `idleMillis`, pinged already or not, and closing for
    /// `closingForMillis` (nil: not closing).
    func verdict(idleMillis: Int64, pinged: Bool, closingForMillis: Int64?) -> LivenessVerdict {
        if let closingForMillis {
            return closingForMillis >= visitPeriodMillis ? .drop : .keep
        }
        if idleMillis >= dropAfterMillis { return .drop }
        if idleMillis >= pingAfterMillis && !pinged { return .ping }
        return .keep
    }
}

/// Connection ids spread over a fixed number of buckets, visited one bucket per tick.
///
/// An id goes to bucket `id % bucketCount`, so sockets that connect in a burst still spread
/// evenly. A tick visits only the next bucket and keeps the ids its visitor keeps: the cost of
/// a tick is the size of one bucket, and closed sockets leave lazily at their next visit, with
/// nothing to do at close time. Every id is visited once per `bucketCount` ticks. Pure; the
/// owner runs it on its service thread.
struct LivenessSweep {
    private var buckets: [[UInt64]]
    private var next = 0
    /// Ids held, including those of sockets closed since their last visit.
    private(set) var count = 0

    init(bucketCount: Int) {
        precondition(bucketCount > 0)
        buckets = Array(repeating: [], count: bucketCount)
    }

    var bucketCount: Int { buckets.count }

    mutating func insert(_ id: UInt64) {
        buckets[Int(id % UInt64(buckets.count))].append(id)
        count += 1
    }

    /// Visits every id of the next bucket; an id stays only if `visit` returns true.
    mutating func visitNextBucket(_ visit: (UInt64) -> Bool) {
        let visited = buckets[next]
        let kept = visited.filter(visit)
        buckets[next] = kept
        count -= visited.count - kept.count
        next = (next + 1) % buckets.count
    }
}

/// What the liveness sweep does with one socket it visits.
enum LivenessVerdict: Equatable {
    /// Heard from recently enough, or already pinged and still within its time.
    case keep
    /// Quiet for half the interval: send a WebSocket ping.
    case ping
    /// Quiet too long, or closing for longer than a visit period: drop the connection now.
    case drop
}

/// Milliseconds on the monotonic clock: only differences mean anything, and wall clock jumps
/// do not move it. Cheap enough (vDSO) to read on every received message.
enum MonotonicClock {
    static func millis() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
