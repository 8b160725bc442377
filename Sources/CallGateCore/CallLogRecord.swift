import CallGateProtocol

/// One call as the call log keeps it: a ringing call or a meeting, written by the gateway from
/// its own state transitions, so the caller's and the callee's history always agree.
///
/// `id` orders calls by creation and is never reused, so a record saved again (a retry, a later
/// transition) replaces the same row.
public struct CallLogRecord: Codable, Hashable, Sendable {
    /// The call's number, increasing with creation, unique across restarts.
    public var id: Int64
    /// The session id (a meeting id may hold several calls over time).
    public var sessionId: String
    /// `call` for a rung call, `meet` for a standalone session.
    public var callCategory: CallCategory
    /// Audio or video, as it stands now.
    public var callType: CallType
    /// Where the call stands; a meeting is `ongoing`, then `ended`.
    public var callStatus: CallStatus
    /// Who rang, or who joined a meeting first.
    public var initiator: User
    /// Who was rung; nil for meetings.
    public var receiver: CallReceiver?
    /// When it was initiated (a meeting: its first join), Unix seconds.
    public var initiatedAt: Int64
    /// When it was first answered (a meeting: its first join).
    public var startedAt: Int64?
    /// When it reached a terminal status.
    public var endedAt: Int64?
    /// When its ring timeout passes, Unix milliseconds; nil once nobody rings.
    public var ringDeadline: Int64?
    /// When its ring times out, Unix seconds, fixed for a rung call (the wire's
    /// `Call.ringExpiresAt`); nil for meetings and for calls logged before it was kept.
    public var ringExpiresAt: Int64?
    /// The initiator first, then everyone rung or joined, in order.
    public var participants: [CallLogParticipantRecord]
    /// Every recording, in the order they started (without URLs: those are attached later).
    public var recordings: [CallLogRecording]
    /// The caller's free-form data.
    public var metadata: [String: JSONValue]?
    /// True when the caller allowed call waiting (`initiateCall`'s `callWaiting`).
    public var callWaiting: Bool?
    /// What happened in the call, step by step, for its timeline. Not part of the record's JSON:
    /// the stores keep it apart, and read it back only for the calls of one session id and for
    /// open calls (a page of the call log comes without it).
    public var steps = CallSteps()

    /// The record's keys in its JSON; `steps` is kept apart.
    private enum CodingKeys: String, CodingKey {
        case id, sessionId, callCategory, callType, callStatus, initiator, receiver, initiatedAt, startedAt, endedAt
        case ringDeadline, ringExpiresAt, participants, recordings, metadata, callWaiting
    }

    /// Makes a record.
    public init(
        id: Int64, sessionId: String, callCategory: CallCategory, callType: CallType, callStatus: CallStatus,
        initiator: User, receiver: CallReceiver?, initiatedAt: Int64, startedAt: Int64? = nil,
        endedAt: Int64? = nil, ringDeadline: Int64? = nil, ringExpiresAt: Int64? = nil,
        participants: [CallLogParticipantRecord], recordings: [CallLogRecording] = [],
        metadata: [String: JSONValue]? = nil, callWaiting: Bool? = nil, steps: CallSteps = CallSteps()
    ) {
        self.id = id
        self.sessionId = sessionId
        self.callCategory = callCategory
        self.callType = callType
        self.callStatus = callStatus
        self.initiator = initiator
        self.receiver = receiver
        self.initiatedAt = initiatedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.ringDeadline = ringDeadline
        self.ringExpiresAt = ringExpiresAt
        self.participants = participants
        self.recordings = recordings
        self.metadata = metadata
        self.callWaiting = callWaiting
        self.steps = steps
    }

    /// Whether the call may still change (`initiated` or `ongoing`).
    public var isOpen: Bool {
        !callStatus.isTerminal
    }

    /// The call as the wire shows it; nil for a meeting. A record written before `ringExpiresAt`
    /// was kept estimates it: its ring deadline while it rings, else its start plus
    /// `defaultRingTimeout` seconds (the timeout it asked for is not kept).
    public func call(defaultRingTimeout: Int64) -> Call? {
        guard let receiver else { return nil }
        let estimatedExpiry = ringDeadline.map(GatewayCore.ringExpiry(ofDeadline:)) ?? initiatedAt + defaultRingTimeout
        return Call(
            sessionId: sessionId, callType: callType, receiverType: groupID == nil ? .user : .group,
            callStatus: callStatus, initiator: initiator, receiver: receiver, initiatedAt: initiatedAt,
            joinedAt: startedAt, endedAt: endedAt, metadata: metadata, callUUID: CallUUID.of(sessionId: sessionId),
            ringExpiresAt: ringExpiresAt ?? estimatedExpiry, callWaiting: callWaiting)
    }

    /// The guid of the group it rang, nil for 1:1 calls and meetings.
    public var groupID: String? {
        if case .group(let group)? = receiver {
            return group.guid
        }
        return nil
    }

    /// Whether `uid` was part of the call: its initiator, rung, or joined.
    public func involves(_ uid: String) -> Bool {
        participants.contains { $0.uid == uid }
    }

    /// Which way the call went for `uid`.
    public func direction(for uid: String) -> CallDirection {
        uid == initiator.uid ? .outgoing : .incoming
    }

    /// Whether it is a missed call for `uid`: they did not initiate it, and it stopped ringing
    /// them unanswered (unanswered, cancelled, busy elsewhere, or timed out while others talked),
    /// or they declined it as busy. A plain decline is not a missed call.
    public func isMissed(by uid: String) -> Bool {
        guard uid != initiator.uid, let me = participants.first(where: { $0.uid == uid }) else { return false }
        return isMissed(as: me.state)
    }

    /// The users for whom it is a missed call (`isMissed(by:)`), each once, in participant order.
    public var missedUIDs: [String] {
        var seen: Set<String> = []
        return participants.compactMap { participant in
            guard isMissed(as: participant.state), participant.uid != initiator.uid,
                  seen.insert(participant.uid).inserted else { return nil }
            return participant.uid
        }
    }

    /// Whether a callee whose part is `state` missed it: the call stopped ringing them, or they
    /// declined it as busy.
    private func isMissed(as state: CallLogParticipantState) -> Bool {
        switch state {
        case .missed: true
        case .declined: callStatus == .busy
        case .joined, .ringing: false
        }
    }

    /// The call as `uid` sees it in their log, with stays in progress counted up to `now`;
    /// `unseen` holds the ids of uid's missed calls no device marked seen yet.
    public func log(for uid: String, at now: Int64, unseen: Set<Int64> = []) -> CallLog {
        var duration: Int64 = 0
        if let startedAt, let endedAt {
            duration = max(0, endedAt - startedAt)
        }
        let missed = isMissed(by: uid)
        var receiverType: ReceiverType?
        switch receiver {
        case .user?: receiverType = .user
        case .group?: receiverType = .group
        case nil: receiverType = nil
        }
        return CallLog(
            sessionId: sessionId, initiator: initiator, receiver: receiver, receiverType: receiverType,
            callType: callType, callStatus: callStatus, callCategory: callCategory,
            callDirection: direction(for: uid), initiatedAt: initiatedAt, startedAt: startedAt,
            endedAt: endedAt, duration: duration, hasRecording: !recordings.isEmpty, recordings: recordings,
            participants: participants.map { $0.participant(at: endedAt ?? now) },
            missed: missed ? true : nil, seen: missed ? !unseen.contains(id) : nil, metadata: metadata,
            callUUID: callCategory == .call ? CallUUID.of(sessionId: sessionId) : nil, ringExpiresAt: ringExpiresAt)
    }
}

/// One user of a call as the store keeps it: their part in the call plus the stay in progress,
/// so a reader can count it up to any time and a restarted gateway can go on counting.
public struct CallLogParticipantRecord: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// Whether they took part, declined, missed it, or still ring.
    public var state: CallLogParticipantState
    /// When their first stay started, Unix seconds.
    public var joinedAt: Int64?
    /// When their last stay ended, Unix seconds; nil while a stay runs or before any.
    public var leftAt: Int64?
    /// Seconds of the stays that are over.
    public var closedSeconds: Int64
    /// When the stay in progress started, Unix seconds; nil when none runs.
    public var stayStartedAt: Int64?
    /// Seconds of the holds that are over (`holdCall` to `resumeCall`); nil when they never held it.
    public var heldSeconds: Int64?
    /// When the hold in progress started, Unix seconds; nil when none runs.
    public var holdStartedAt: Int64?
    /// True while they hold the call to take a waiting one (call waiting): it does not engage
    /// them until they take it back. nil otherwise.
    public var heldAway: Bool?

    /// Makes a participant record.
    public init(
        uid: String, name: String, avatar: String? = nil, state: CallLogParticipantState,
        joinedAt: Int64? = nil, leftAt: Int64? = nil, closedSeconds: Int64 = 0, stayStartedAt: Int64? = nil,
        heldSeconds: Int64? = nil, holdStartedAt: Int64? = nil, heldAway: Bool? = nil
    ) {
        self.heldSeconds = heldSeconds
        self.holdStartedAt = holdStartedAt
        self.heldAway = heldAway
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.state = state
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.closedSeconds = closedSeconds
        self.stayStartedAt = stayStartedAt
    }

    /// The wire view, with a stay in progress counted up to `now`.
    public func participant(at now: Int64) -> CallLogParticipant {
        let running = stayStartedAt.map { max(0, now - $0) } ?? 0
        return CallLogParticipant(
            uid: uid, name: name, avatar: avatar, joinedAt: joinedAt, leftAt: leftAt,
            totalDuration: closedSeconds + running, state: state, heldDuration: heldDuration(at: now))
    }

    /// Seconds on hold with a hold in progress counted up to `now`; nil when they never held it.
    public func heldDuration(at now: Int64) -> Int64? {
        guard heldSeconds != nil || holdStartedAt != nil else { return nil }
        return (heldSeconds ?? 0) + (holdStartedAt.map { max(0, now - $0) } ?? 0)
    }
}
