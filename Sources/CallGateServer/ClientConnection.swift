import CallGateCore
import CallGateProtocol
import LWS

/// What the gateway knows about one client connection: its socket, its life (`connect`
/// handshake, message rate, token; `ConnectionLifecycle`), and what cluster mode tracks of it.
/// The service keeps one per open socket, by the Core's connection id, from open to close.
/// Service thread only.
final class ClientConnection {
    let id: ConnectionID
    /// The socket, for writes and closes.
    let socket: any ClientSocket
    /// The client's IP address: the TCP peer, or what a trusted proxy forwarded (see
    /// `TrustedProxies`). For logs, and for the limit of sockets per client address.
    let clientAddress: String
    /// The address this socket is counted under as a WebSocket (see `AdmissionControl`): the
    /// forwarded client's when it came through a trusted proxy, nil when its connection is
    /// counted from accept instead.
    var countedAddress: String?
    /// When (the clock's monotonic ms) a connection still not connected is closed with 4001.
    let authDeadline: Int64
    /// Where it is in the handshake, its message budget and its token's life.
    var life: ConnectionLifecycle
    /// The user this connection is registered as with the Core and attached as in the push
    /// history; nil before `connect`, and after a newer connection of its device replaced it.
    var uid: String?
    /// The hub's timer that closes the socket with 4003 when its token expires, once connected.
    var expiryTimer: TimerID?
    /// Cluster mode: the nodes that run this device as one of theirs (it had ops forwarded
    /// there, or was announced to the owner of a call of its user) until told it departed.
    var knownTo: Set<String> = []
    /// Cluster mode: where this device stands in its user's push sequence: the epoch it was
    /// told at `connect` and the last seq given to it (or passed over as not its own); nil
    /// outside cluster mode, before `connect`, and once its sequence broke (it is closing).
    var sequence: HistoryPosition?
    /// Cluster mode: the seq its `connect` read; pushes up to it that come later are not its.
    var sequenceFloor: UInt64 = 0

    init(socket: any ClientSocket, authDeadline: Int64, clientAddress: String, messageBudget: TokenBucket?) {
        id = ConnectionID(socket.id)
        self.socket = socket
        self.clientAddress = clientAddress
        self.authDeadline = authDeadline
        life = ConnectionLifecycle(budget: messageBudget)
    }

    /// Whether `connect` succeeded.
    var isConnected: Bool { life.isConnected }
}

/// to `burst` at once. Pure: the caller passes the time, in milliseconds of a monotonic clock.
///
/// Tokens are kept in thousandths so that refills stay exact in integers at any rate.
struct TokenBucket {
    let ratePerSecond: Int64
    let burst: Int64
    private var milliTokens: Int64
    private var lastMillis: Int64

    /// A full bucket at `now`.
    init(ratePerSecond: Int, burst: Int, now: Int64) {
        precondition(ratePerSecond > 0 && burst > 0)
        self.ratePerSecond = Int64(ratePerSecond)
        self.burst = Int64(burst)
        milliTokens = Int64(burst) * 1000
        lastMillis = now
    }

    /// Takes one token at `now`; false when the budget is spent. Time going backwards refills nothing.
    mutating func take(now: Int64) -> Bool {
        let elapsed = min(max(0, now - lastMillis), 3_600_000)
        lastMillis = max(lastMillis, now)
        milliTokens = min(burst * 1000, milliTokens + elapsed * ratePerSecond)
        guard milliTokens >= 1000 else { return false }
        milliTokens -= 1000
        return true
    }
}

/// Sockets waiting for `connect`, oldest first. Every socket gets the same timeout, so the
/// oldest entry always has the earliest deadline and a sweep only looks at the front.
struct AuthDeadlineQueue {
    private var entries: [(connection: ConnectionID, deadline: Int64)] = []
    private var head = 0

    mutating func append(_ connection: ConnectionID, deadline: Int64) {
        entries.append((connection, deadline))
    }

    /// The deadline of the oldest entry, if any.
    var nextDeadline: Int64? {
        head < entries.count ? entries[head].deadline : nil
    }

    /// Removes and returns every entry whose deadline is at or before `now`.
    mutating func popExpired(now: Int64) -> [ConnectionID] {
        var expired: [ConnectionID] = []
        while head < entries.count, entries[head].deadline <= now {
            expired.append(entries[head].connection)
            head += 1
        }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return expired
    }
}
