/// The `result` of a successful `connect`.
public struct ConnectResult: Codable, Hashable, Sendable {
    /// The user the token named.
    public var user: User
    /// The server's id for this socket, useful in logs and support requests, and for
    /// `recover.connectionId` when this device connects again.
    public var connectionId: String
    /// The server's clock, Unix milliseconds, so clients can correct their own.
    public var serverTime: Int64
    /// Calls this user is ringing for or taking part in right now, so a device that reconnects
    /// mid-ring shows the right screen.
    public var activeCalls: [Call]
    /// When the token expires, Unix seconds: the socket is closed with 4003 then, unless a
    /// `refreshToken` with a later token came first.
    public var tokenExpiresAt: Int64
    /// The epoch of the user's push sequence now.
    public var epoch: String
    /// The user's last push number in `epoch` before this reply (pushes replayed after it
    /// included): a device that saw nothing else recovers from here next time.
    public var seq: UInt64
    /// The answer to `recover`; nil when the request did not ask.
    public var recovery: Recovery?
    /// The sessions this socket is a participant of already, taken over from the connection
    /// `recover.connectionId` named, as they stand now (participants, mutes, recording);
    /// empty when none.
    public var resumedSessions: [Session]
    /// How many of the user's missed calls no device marked seen yet; nil when the store could
    /// not be read (the next `onMissedCallsChanged` tells).
    public var unseenMissedCalls: Int?
    /// The revision of that count: an `onMissedCallsChanged` with a revision no higher is older
    /// news. Present with `unseenMissedCalls`.
    public var missedCallsRevision: Int64?

    /// Makes a connect result.
    public init(
        user: User, connectionId: String, serverTime: Int64, activeCalls: [Call], tokenExpiresAt: Int64,
        epoch: String, seq: UInt64, recovery: Recovery? = nil, resumedSessions: [Session] = [],
        missedCalls: MissedCalls? = nil
    ) {
        self.user = user
        self.connectionId = connectionId
        self.serverTime = serverTime
        self.activeCalls = activeCalls
        self.tokenExpiresAt = tokenExpiresAt
        self.epoch = epoch
        self.seq = seq
        self.recovery = recovery
        self.resumedSessions = resumedSessions
        unseenMissedCalls = missedCalls?.unseen
        missedCallsRevision = missedCalls?.revision
    }

    /// The user's missed calls as the connect found them; nil when it could not read them.
    public var missedCalls: MissedCalls? {
        guard let unseenMissedCalls, let missedCallsRevision else { return nil }
        return MissedCalls(unseen: unseenMissedCalls, revision: missedCallsRevision)
    }
}

/// Where a user's missed calls stand: the `result` of `markCallsSeen` and the `data` of
/// `onMissedCallsChanged`. Every change to the count raises `revision`, so a device that hears
/// counts from several nodes keeps the one with the highest.
public struct MissedCalls: Codable, Hashable, Sendable {
    /// How many of the user's missed calls no device marked seen yet.
    public var unseen: Int
    /// Raised by every change to `unseen`; 0 before the first.
    public var revision: Int64

    /// Makes a count.
    public init(unseen: Int, revision: Int64) {
        self.unseen = unseen
        self.revision = revision
    }
}

/// The `result` of a `ping`.
public struct PingResult: Codable, Hashable, Sendable {
    /// The server's clock, Unix milliseconds.
    public var serverTime: Int64

    /// Makes a ping result.
    public init(serverTime: Int64) {
        self.serverTime = serverTime
    }
}

/// The `result` of a `generateToken`: a call token for one session and one user.
public struct GenerateTokenResult: Codable, Hashable, Sendable {
    /// The signed, short-lived token to present to `joinSession`.
    public var callToken: String
    /// The session the token is bound to.
    public var sessionId: String
    /// When the token expires, Unix seconds.
    public var expiresAt: Int64

    /// Makes a token result.
    public init(callToken: String, sessionId: String, expiresAt: Int64) {
        self.callToken = callToken
        self.sessionId = sessionId
        self.expiresAt = expiresAt
    }
}

/// The `result` of a successful `refreshToken`.
public struct RefreshTokenResult: Codable, Hashable, Sendable {
    /// When the socket's token now expires, Unix seconds: the later of the old and the new
    /// token's `exp`.
    public var tokenExpiresAt: Int64

    /// Makes a refresh result.
    public init(tokenExpiresAt: Int64) {
        self.tokenExpiresAt = tokenExpiresAt
    }
}

/// The `result` of `inviteToCall`: the call, and what became of each invitee.
public struct InviteResult: Codable, Hashable, Sendable {
    /// The call as it stands after the invite.
    public var call: Call
    /// The invitees it rings now, in the order asked.
    public var rung: [String]
    /// The invitees in another answered call, not rung (auto-busy), in the order asked.
    public var busy: [String]

    /// Makes the result.
    public init(call: Call, rung: [String], busy: [String]) {
        self.call = call
        self.rung = rung
        self.busy = busy
    }
}

/// The `result` of `sendSessionEvent`: the event went to the session's other devices.
public struct SessionEventResult: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// The event's type, as sent.
    public var type: String
    /// How many users were in the session (the sender included): each one's devices but the
    /// sending one got `onSessionEvent`.
    public var participants: Int

    /// Makes the result.
    public init(sessionId: String, type: String, participants: Int) {
        self.sessionId = sessionId
        self.type = type
        self.participants = participants
    }
}

/// The `result` of the session ops (`joinSession`, `leaveSession`, `setMuted`, `startRecording`,
/// `stopRecording`, `switchToVideo`, `muteParticipant`, `removeParticipant`): the session as it
/// stands after the op.
public struct SessionResult: Codable, Hashable, Sendable {
    /// The session.
    public var session: Session

    /// Makes a session result.
    public init(session: Session) {
        self.session = session
    }
}
