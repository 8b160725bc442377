/// A call as the wire shows it: in replies, in pushes and in `activeCalls`.
///
/// Timestamps are Unix seconds. Optional fields are omitted from the JSON when nil.
public struct Call: Codable, Hashable, Sendable {
    /// The unguessable id the gateway gave the call.
    public var sessionId: String
    /// Audio or video.
    public var callType: CallType
    /// Whether the call rings a user or a group.
    public var receiverType: ReceiverType
    /// Always `call` for ringing calls.
    public var callCategory: CallCategory
    /// Where the call stands.
    public var callStatus: CallStatus
    /// Who rang.
    public var initiator: User
    /// Who is rung: the callee, or the group (with its member count at the time of the call).
    public var receiver: CallReceiver
    /// When the call was initiated.
    public var initiatedAt: Int64
    /// When the call was first answered.
    public var joinedAt: Int64?
    /// When the call reached a terminal status.
    public var endedAt: Int64?
    /// Free-form data the caller attached, passed through untouched.
    public var metadata: [String: JSONValue]?
    /// The call's UUID for the phone's call screen (CallKit, ConnectionService): a lowercase
    /// RFC 4122 UUID, fixed for the call, so a call learned of from a VoIP push and from the
    /// socket is one call. Always set by the gateway; nil only when read from an older one.
    public var callUUID: String?
    /// When the ring times out, Unix seconds (rounded up): a ring shown from a VoIP push after
    /// this is stale. Fixed for the call; set by the gateway on every rung call (nil only when
    /// read from an older gateway, or a call log entry written before it was kept).
    public var ringExpiresAt: Int64?
    /// Why the app's backend ended the call, as it said (`POST /v1/calls/{sessionId}/end`);
    /// nil for every call it did not end with a reason.
    public var serverReason: String?
    /// True when the caller's app allows call waiting (`initiateCall`'s `callWaiting`): a callee
    /// in another answered call is rung, and accepting puts that call on hold. nil otherwise.
    public var callWaiting: Bool?

    /// Makes a call value.
    public init(
        sessionId: String,
        callType: CallType,
        receiverType: ReceiverType,
        callCategory: CallCategory = .call,
        callStatus: CallStatus,
        initiator: User,
        receiver: CallReceiver,
        initiatedAt: Int64,
        joinedAt: Int64? = nil,
        endedAt: Int64? = nil,
        metadata: [String: JSONValue]? = nil,
        callUUID: String? = nil,
        ringExpiresAt: Int64? = nil,
        serverReason: String? = nil,
        callWaiting: Bool? = nil
    ) {
        self.sessionId = sessionId
        self.callType = callType
        self.receiverType = receiverType
        self.callCategory = callCategory
        self.callStatus = callStatus
        self.initiator = initiator
        self.receiver = receiver
        self.initiatedAt = initiatedAt
        self.joinedAt = joinedAt
        self.endedAt = endedAt
        self.metadata = metadata
        self.callUUID = callUUID
        self.ringExpiresAt = ringExpiresAt
        self.serverReason = serverReason
        self.callWaiting = callWaiting
    }
}

/// Where a call stands in the ringing state machine.
///
/// `initiated` and `ongoing` are live; every other status is terminal and never changes again.
public enum CallStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Ringing: nobody has answered yet.
    case initiated
    /// Answered: at least one callee joined the caller.
    case ongoing
    /// The ring timeout passed without an answer.
    case unanswered
    /// The callee (or, in a group, every member rung) declined.
    case rejected
    /// The callee was busy: either automatically (already in a call) or by declining with `busy`.
    case busy
    /// The caller hung up (or vanished) before anyone answered.
    case cancelled
    /// An answered call that is over.
    case ended

    /// Whether the call is over, so no op may change it any more.
    public var isTerminal: Bool {
        switch self {
        case .initiated, .ongoing: false
        case .unanswered, .rejected, .busy, .cancelled, .ended: true
        }
    }
}

/// Whether a call carries audio only or audio and video.
public enum CallType: String, Codable, Hashable, Sendable, CaseIterable {
    /// Voice only.
    case audio
    /// Voice and video.
    case video
}

/// The kind of session a call belongs to.
public enum CallCategory: String, Codable, Hashable, Sendable, CaseIterable {
    /// A ringing call, and the session it becomes.
    case call
    /// A standalone session joined directly (a meeting link), without ringing.
    case meet
}

/// Whether a call rings one user or every member of a group.
public enum ReceiverType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A 1:1 call; `receiverId` is a uid.
    case user
    /// A group call; `receiverId` is a guid.
    case group
}

/// Who a call rings: one user or a group.
///
/// On the wire it is the bare User or Group object; a decoder tells them apart by the `guid` key
/// that only groups have.
public enum CallReceiver: Hashable, Sendable {
    /// A 1:1 call to this user.
    case user(User)
    /// A group call to this group.
    case group(Group)
}

extension CallReceiver: Codable {
    private enum ProbeKeys: String, CodingKey {
        case guid
    }

    /// Reads a Group when the object has a `guid` key, else a User.
    public init(from decoder: any Decoder) throws {
        let probe = try decoder.container(keyedBy: ProbeKeys.self)
        if probe.contains(.guid) {
            self = .group(try Group(from: decoder))
        } else {
            self = .user(try User(from: decoder))
        }
    }

    /// Writes the bare User or Group object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .user(let user):
            try user.encode(to: encoder)
        case .group(let group):
            try group.encode(to: encoder)
        }
    }
}

/// The status a `rejectCall` asks for.
public enum RejectStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// The callee declines.
    case rejected
    /// The callee declines because they are busy.
    case busy
    /// The caller cancels before anyone answered.
    case cancelled
}

/// Why a ringing device stops ringing (`onIncomingCallCanceled.reason`).
public enum CancelReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// Another device of the same user accepted.
    case answeredElsewhere
    /// Another device of the same user declined.
    case rejectedElsewhere
    /// The caller cancelled, or vanished and the grace period passed.
    case cancelled
    /// The ring timeout passed.
    case unanswered
    /// The group call ended while this member was still ringing.
    case ended
    /// The app's backend ended the call (`POST /v1/calls/{sessionId}/end`).
    case endedByServer
}

/// Why a participant left an answered call (`onCallEndedMessageReceived.reason`).
public enum EndReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// The participant ended the call with `endCall`.
    case hungUp
    /// Every device of the participant disconnected and the grace period passed.
    case disconnected
    /// The session's host or the app's backend removed the participant.
    case removed
    /// The app's backend ended the call for everyone (`POST /v1/calls/{sessionId}/end`).
    case endedByServer
}
