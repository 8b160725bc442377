import CallGateProtocol

/// The filters of a call log query; nil members do not filter.
public struct CallLogFilter: Hashable, Sendable {
    /// `call` or `meet` (the API's `mode`).
    public var category: CallCategory?
    /// Audio or video (the API's `type`).
    public var callType: CallType?
    /// One call status.
    public var status: CallStatus?
    /// Incoming or outgoing, from the asking user's side.
    public var direction: CallDirection?
    /// Only calls with at least one recording, when true.
    public var hasRecording: Bool
    /// Only calls that this user was also part of (the API's `uid`).
    public var withUser: String?
    /// Only calls that rang this group (the API's `guid`).
    public var group: String?

    /// Makes a filter.
    public init(
        category: CallCategory? = nil, callType: CallType? = nil, status: CallStatus? = nil,
        direction: CallDirection? = nil, hasRecording: Bool = false, withUser: String? = nil, group: String? = nil
    ) {
        self.category = category
        self.callType = callType
        self.status = status
        self.direction = direction
        self.hasRecording = hasRecording
        self.withUser = withUser
        self.group = group
    }

    /// Whether `record` passes every filter, for the user `viewer`.
    public func matches(_ record: CallLogRecord, viewer: String) -> Bool {
        if let category, record.callCategory != category { return false }
        if let callType, record.callType != callType { return false }
        if let status, record.callStatus != status { return false }
        if let direction, record.direction(for: viewer) != direction { return false }
        if hasRecording, record.recordings.isEmpty { return false }
        if let withUser, !record.involves(withUser) { return false }
        if let group, record.groupID != group { return false }
        return true
    }
}
