import CallGateProtocol

/// A connection's life from open to close, as one value: where it is in the `connect` handshake,
/// its message budget and whether it went over it, and how long its token keeps it open. Each
/// event is a mutating method that says what the service must do, so the rules are unit-tested
/// without a socket (`ConnectionLifecycleTests`). Pure: the caller passes the time. Service
/// thread only.
struct ConnectionLifecycle {
    /// Where the connection is in the `connect` handshake.
    enum Phase: Equatable {
        /// Open, no `connect` yet.
        case awaitingConnect
        /// `connect` received, its token being verified off the service thread.
        case verifying
        /// Authenticated; registered with the Core, which knows its user.
        case connected
    }

    /// What to do with a request frame.
    enum Request: Equatable {
        /// A `connect` to verify: the connection is `verifying` now.
        case verify
        /// An op of a connected device: run it.
        case run
        /// Answer it with `code` and `message`.
        case refuse(ErrorCode, String)
    }

    /// What to do with a frame, by the message budget.
    enum Message: Equatable {
        /// Take it.
        case take
        /// The connection just went over its budget: close it with 4029 (after what is queued).
        case closeOverRate
        /// It is closing for its rate already: drop the frame.
        case drop
    }

    private(set) var phase = Phase.awaitingConnect
    /// What is left of the message rate; nil without a limit.
    private var budget: TokenBucket?
    /// Set once the connection went over its rate: it is closing, and its frames are dropped.
    private(set) var overRate = false
    /// When the token expires, Unix seconds; 0 until connected.
    private(set) var tokenExpiresAt: Int64 = 0

    /// A connection just opened, with a message budget of `budget` (nil: no limit).
    init(budget: TokenBucket?) {
        self.budget = budget
    }

    /// Whether `connect` succeeded.
    var isConnected: Bool { phase == .connected }

    /// A request frame arrived: a `connect` (`isConnect`) or another op.
    mutating func received(isConnect: Bool) -> Request {
        switch (isConnect, phase) {
        case (true, .awaitingConnect):
            phase = .verifying
            return .verify
        case (true, _):
            return .refuse(.badRequest, "this socket already sent connect")
        case (false, .connected):
            return .run
        case (false, _):
            return .refuse(.userNotLoggedIn, "send connect with a token first")
        }
    }

    /// The `connect` being verified failed in a way the device may retry on this socket.
    mutating func connectFailed() {
        if phase == .verifying {
            phase = .awaitingConnect
        }
    }

    /// The `connect` succeeded with a token that expires at `expiresAt` (Unix seconds).
    /// Returns whether that moved the expiry (see `extend`).
    mutating func connected(until expiresAt: Int64) -> Bool {
        phase = .connected
        return extend(until: expiresAt)
    }

    /// A refreshed token expires at `expiresAt`: the connection stays open until then, unless it
    /// already may stay longer (a refresh never shortens a socket's life, so two refreshes whose
    /// checks finish out of order leave the later token in force). Returns whether it moved.
    mutating func extend(until expiresAt: Int64) -> Bool {
        guard expiresAt > tokenExpiresAt else { return false }
        tokenExpiresAt = expiresAt
        return true
    }

    /// A frame arrived at `now` (monotonic ms): every frame counts against the budget.
    mutating func spendMessage(now: Int64) -> Message {
        if overRate { return .drop }
        guard budget?.take(now: now) == false else { return .take }
        overRate = true
        return .closeOverRate
    }
}
