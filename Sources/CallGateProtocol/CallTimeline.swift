/// What a step of a call's timeline says happened.
public enum CallStepKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// The caller started the call (`uid`, `device`).
    case initiated
    /// A callee was rung (`uid`): `devices` is how many of their devices the ring was written
    /// to, `wakeUp` whether a wake-up push was asked of the backend (no device connected).
    case rung
    /// A callee was not rung: they were in another answered call (`uid`).
    case busy
    /// A callee's device confirmed it shows the ring (`uid`, `device`).
    case ringing
    /// A callee answered (`uid`, `device`).
    case accepted
    /// A callee declined (`uid`, `device`, `status`: `rejected` or `busy`).
    case declined
    /// A member still ringing when the ring timed out while the call went on (`uid`).
    case missed
    /// A participant joined the call's session (`uid`, `device`).
    case joined
    /// A participant left the call's session (`uid`, `reason`).
    case left
    /// A recording started (`uid`, `rid`).
    case recordingStarted
    /// A recording stopped (`uid` when someone stopped it, `rid`).
    case recordingStopped
    /// A participant put the call on hold (`uid`).
    case held
    /// A participant took the call off hold (`uid`).
    case resumed
    /// The call reached its final status (`status`; `uid` who made it so, when someone did;
    /// `reason`).
    case finished
    /// An attempt to deliver a webhook event about the call (`event`, `endpoint`, `attempt`,
    /// `result`, `httpStatus`), or a delivery not attempted yet (`result` `pending`).
    case webhook
}

/// One step of a call's timeline: what happened, when (Unix milliseconds), and the fields its
/// kind uses (see `CallStepKind`); the others are absent.
public struct CallStep: Codable, Hashable, Sendable {
    /// When, Unix milliseconds.
    public var at: Int64
    /// What happened.
    public var step: CallStepKind
    /// The user it is about.
    public var uid: String?
    /// The device it came from: the `connectionId` its connect answered.
    public var device: String?
    /// `rung`: how many devices of the callee the ring was written to.
    public var devices: Int?
    /// `rung`: whether a wake-up push was asked for (the callee had no device connected).
    public var wakeUp: Bool?
    /// `declined`, `finished`: the call status it brought.
    public var status: CallStatus?
    /// `left`, `finished`: why.
    public var reason: String?
    /// `finished`, when the app's backend ended the call: the reason it gave.
    public var serverReason: String?
    /// `recordingStarted`, `recordingStopped`: the recording.
    public var rid: String?
    /// `webhook`: the event type.
    public var event: String?
    /// `webhook`: the endpoint's id.
    public var endpoint: String?
    /// `webhook`: the attempt's number, from 1; absent for a delivery not attempted yet.
    public var attempt: Int?
    /// `webhook`: `delivered`, `failed` (tried again later), `dead` (given up), or `pending`.
    public var result: String?
    /// `webhook`: the receiver's HTTP status, when it answered.
    public var httpStatus: Int?

    /// Makes a step.
    public init(
        at: Int64, step: CallStepKind, uid: String? = nil, device: String? = nil, devices: Int? = nil,
        wakeUp: Bool? = nil, status: CallStatus? = nil, reason: String? = nil, rid: String? = nil,
        event: String? = nil, endpoint: String? = nil, attempt: Int? = nil, result: String? = nil,
        httpStatus: Int? = nil, serverReason: String? = nil
    ) {
        self.at = at
        self.step = step
        self.uid = uid
        self.device = device
        self.devices = devices
        self.wakeUp = wakeUp
        self.status = status
        self.reason = reason
        self.serverReason = serverReason
        self.rid = rid
        self.event = event
        self.endpoint = endpoint
        self.attempt = attempt
        self.result = result
        self.httpStatus = httpStatus
    }
}

/// The timeline of one call under a session id: its steps in order of time.
public struct CallTimeline: Codable, Hashable, Sendable {
    /// The call's session id.
    public var sessionId: String
    /// `call` or `meet`.
    public var callCategory: CallCategory
    /// Where the call stands now.
    public var callStatus: CallStatus
    /// When it was initiated, Unix seconds (as in the call log).
    public var initiatedAt: Int64
    /// The steps, oldest first (webhook attempts among them by time).
    public var steps: [CallStep]
    /// How many steps of the call were left out to keep it within the cap (the earliest are
    /// kept, then the latest); 0 when none was.
    public var omittedSteps: Int

    /// Makes a timeline.
    public init(
        sessionId: String, callCategory: CallCategory, callStatus: CallStatus, initiatedAt: Int64, steps: [CallStep],
        omittedSteps: Int
    ) {
        self.sessionId = sessionId
        self.callCategory = callCategory
        self.callStatus = callStatus
        self.initiatedAt = initiatedAt
        self.steps = steps
        self.omittedSteps = omittedSteps
    }
}

/// The body of `GET /v3.0/calls/{sessionId}/timeline`: the timeline of every call the asking
/// user was part of under that session id, newest first (a meeting id may hold several).
public struct CallTimelineBody: Codable, Hashable, Sendable {
    /// The timelines.
    public var data: [CallTimeline]

    /// Makes a timeline body.
    public init(data: [CallTimeline]) {
        self.data = data
    }
}
