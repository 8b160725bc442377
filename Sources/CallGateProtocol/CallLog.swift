/// One call as `GET /v3.0/calls` shows it to one user: a ringing call (`callCategory` `call`) or
/// a meeting (`meet`), from the gateway's own state transitions.
///
/// Timestamps are Unix seconds. Optional fields are omitted from the JSON when nil.
public struct CallLog: Codable, Hashable, Sendable {
    /// The call's session id; a meeting id may hold several calls over time.
    public var sessionId: String
    /// Who rang, or who joined a meeting first.
    public var initiator: User
    /// Who was rung: a user or a group. Absent for meetings.
    public var receiver: CallReceiver?
    /// `user` or `group`; absent for meetings.
    public var receiverType: ReceiverType?
    /// Audio or video (video once anyone switched to video).
    public var callType: CallType
    /// Where the call stands; see the call status table.
    public var callStatus: CallStatus
    /// `call` (rung) or `meet` (a standalone session).
    public var callCategory: CallCategory
    /// `outgoing` for the initiator, `incoming` for everyone else.
    public var callDirection: CallDirection
    /// When the call was initiated (a meeting: when its first participant joined).
    public var initiatedAt: Int64
    /// When it was first answered (a meeting: its first join); absent if never answered.
    public var startedAt: Int64?
    /// When it reached a terminal status; absent while it lives.
    public var endedAt: Int64?
    /// Seconds from `startedAt` to `endedAt`; 0 for a call never answered or not over yet.
    public var duration: Int64
    /// Whether the call has at least one recording.
    public var hasRecording: Bool
    /// Every recording, in the order they started.
    public var recordings: [CallLogRecording]
    /// The initiator and everyone rung or joined, with their part in the call.
    public var participants: [CallLogParticipant]
    /// True for a callee of a call that was unanswered, cancelled or busy (or that rang them in
    /// vain); absent otherwise.
    public var missed: Bool?
    /// With `missed`: whether a device of the asking user marked it seen (`markCallsSeen`);
    /// absent when `missed` is.
    public var seen: Bool?
    /// The caller's free-form data, as sent with `initiateCall`.
    public var metadata: [String: JSONValue]?
    /// The rung call's UUID, as `Call.callUUID`; absent for meetings.
    public var callUUID: String?
    /// When the rung call's ring timed out or would have, Unix seconds, as `Call.ringExpiresAt`;
    /// absent for meetings and for calls logged before it was kept.
    public var ringExpiresAt: Int64?

    /// Makes a call log value.
    public init(
        sessionId: String, initiator: User, receiver: CallReceiver? = nil, receiverType: ReceiverType? = nil,
        callType: CallType, callStatus: CallStatus, callCategory: CallCategory, callDirection: CallDirection,
        initiatedAt: Int64, startedAt: Int64? = nil, endedAt: Int64? = nil, duration: Int64,
        hasRecording: Bool, recordings: [CallLogRecording], participants: [CallLogParticipant],
        missed: Bool? = nil, seen: Bool? = nil, metadata: [String: JSONValue]? = nil, callUUID: String? = nil,
        ringExpiresAt: Int64? = nil
    ) {
        self.sessionId = sessionId
        self.initiator = initiator
        self.receiver = receiver
        self.receiverType = receiverType
        self.callType = callType
        self.callStatus = callStatus
        self.callCategory = callCategory
        self.callDirection = callDirection
        self.initiatedAt = initiatedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
        self.hasRecording = hasRecording
        self.recordings = recordings
        self.participants = participants
        self.missed = missed
        self.seen = seen
        self.metadata = metadata
        self.callUUID = callUUID
        self.ringExpiresAt = ringExpiresAt
    }
}

/// Which way a call went, seen from the user who reads the call log.
public enum CallDirection: String, Codable, Hashable, Sendable, CaseIterable {
    /// Someone else initiated it.
    case incoming
    /// The reader initiated it.
    case outgoing
}

/// One user of a logged call, over every stay (a group member may leave and join again).
///
/// A stay of a ringing call runs from the user's accept (the initiator's from the first accept)
/// until they leave or the call ends; a meeting stay runs from join to leave.
public struct CallLogParticipant: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// When their first stay started, Unix seconds; absent if they never took part.
    public var joinedAt: Int64?
    /// When their last stay ended, Unix seconds; absent while they are in the call.
    public var leftAt: Int64?
    /// Seconds over every stay; a stay in progress counts up to the time of the answer.
    public var totalDuration: Int64
    /// Whether they took part, declined or missed it.
    public var state: CallLogParticipantState
    /// Seconds they had the call on hold (`holdCall`), a hold in progress counted up to the time
    /// of the answer; absent when they never held it.
    public var heldDuration: Int64?

    /// Makes a participant value.
    public init(
        uid: String, name: String, avatar: String? = nil, joinedAt: Int64? = nil, leftAt: Int64? = nil,
        totalDuration: Int64, state: CallLogParticipantState, heldDuration: Int64? = nil
    ) {
        self.heldDuration = heldDuration
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.totalDuration = totalDuration
        self.state = state
    }
}

/// Where one user ended up in a logged call.
public enum CallLogParticipantState: String, Codable, Hashable, Sendable, CaseIterable {
    /// They took part: the initiator, a callee who accepted, a user who joined a meeting.
    case joined
    /// They declined the call (rejected, or declined as busy).
    case declined
    /// They never answered: the call stopped ringing them, or they were busy in another call.
    case missed
    /// The call still rings them; only in calls that are still `initiated` or `ongoing`.
    case ringing
}

/// One recording of a logged call.
public struct CallLogRecording: Codable, Hashable, Sendable {
    /// The recording's id: `<sessionId>-r<n>`, n counting from 1 within the call.
    public var rid: String
    /// Where the recorded file is, once the recording service attached it.
    public var recordingUrl: String?
    /// When it started, Unix seconds.
    public var startedAt: Int64
    /// When it stopped, Unix seconds; absent while it runs.
    public var endedAt: Int64?
    /// `endedAt - startedAt` in seconds; absent while it runs.
    public var duration: Int64?

    /// Makes a recording value.
    public init(rid: String, recordingUrl: String? = nil, startedAt: Int64, endedAt: Int64? = nil, duration: Int64? = nil) {
        self.rid = rid
        self.recordingUrl = recordingUrl
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
    }
}

/// The body of `GET /v3.0/calls`: one page of the asking user's calls, newest first.
public struct CallLogListBody: Codable, Hashable, Sendable {
    /// The calls of this page.
    public var data: [CallLog]
    /// Pagination and cursors.
    public var meta: CallLogListMeta

    /// Makes a list body.
    public init(data: [CallLog], meta: CallLogListMeta) {
        self.data = data
        self.meta = meta
    }
}

/// The body of `GET /v3.0/calls/{sessionId}`: every call the asking user was part of under that
/// session id, newest first (a meeting id may hold several).
public struct CallLogDetailBody: Codable, Hashable, Sendable {
    /// The calls.
    public var data: [CallLog]

    /// Makes a detail body.
    public init(data: [CallLog]) {
        self.data = data
    }
}

/// The `meta` member of a call log list: numbered pagination, cursors, and the asking user's
/// unseen missed calls.
public struct CallLogListMeta: Codable, Hashable, Sendable {
    /// Counts and page numbers.
    public var pagination: CallLogPagination
    /// Where the next and previous pages start.
    public var cursor: CallLogCursors
    /// The asking user's missed calls no device marked seen yet, as `markCallsSeen` answers.
    public var missedCalls: MissedCalls

    /// Makes a meta value.
    public init(pagination: CallLogPagination, cursor: CallLogCursors, missedCalls: MissedCalls) {
        self.pagination = pagination
        self.cursor = cursor
        self.missedCalls = missedCalls
    }
}

/// Where a page of call logs sits in the whole list.
public struct CallLogPagination: Codable, Hashable, Sendable {
    /// How many calls match the filters.
    public var total: Int
    /// The page size asked for.
    public var perPage: Int
    /// The number of this page, from 1.
    public var currentPage: Int
    /// How many pages of `perPage` the matching calls fill (0 when none match).
    public var totalPages: Int

    /// Makes a pagination value.
    public init(total: Int, perPage: Int, currentPage: Int, totalPages: Int) {
        self.total = total
        self.perPage = perPage
        self.currentPage = currentPage
        self.totalPages = totalPages
    }
}

/// Opaque positions to page from, stable while new calls arrive: pass one back as `cursor`.
public struct CallLogCursors: Codable, Hashable, Sendable {
    /// The page of older calls after this one; absent on the last page.
    public var next: String?
    /// The page of newer calls before this one; absent when nothing newer matches.
    public var previous: String?

    /// Makes a cursors value.
    public init(next: String? = nil, previous: String? = nil) {
        self.next = next
        self.previous = previous
    }
}
