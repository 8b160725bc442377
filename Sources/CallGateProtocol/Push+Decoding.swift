import Foundation

extension Push {
    /// Rebuilds a typed push from a push frame, as `ServerFrame.push` delivers it.
    ///
    /// Throws `DecodingError` when the event is unknown or its data does not match.
    public init(event: String, frame: Data) throws {
        guard let name = EventName(rawValue: event) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown event '\(event)'"))
        }
        switch name {
        case .onIncomingCallReceived:
            let data = try ServerFrame.decodePushData(IncomingCallReceivedData.self, from: frame)
            self = .incomingCallReceived(call: data.call)
        case .onOutgoingCallAccepted:
            let data = try ServerFrame.decodePushData(OutgoingCallAcceptedData.self, from: frame)
            self = .outgoingCallAccepted(call: data.call, by: data.by)
        case .onOutgoingCallRejected:
            let data = try ServerFrame.decodePushData(OutgoingCallRejectedData.self, from: frame)
            self = .outgoingCallRejected(call: data.call, by: data.by)
        case .onIncomingCallCanceled:
            let data = try ServerFrame.decodePushData(IncomingCallCanceledData.self, from: frame)
            self = .incomingCallCanceled(call: data.call, reason: data.reason)
        case .onCallEndedMessageReceived:
            let data = try ServerFrame.decodePushData(CallEndedMessageReceivedData.self, from: frame)
            self = .callEndedMessageReceived(call: data.call, by: data.by, reason: data.reason)
        case .onUserJoined:
            let data = try ServerFrame.decodePushData(UserJoinedData.self, from: frame)
            self = .userJoined(sessionId: data.sessionId, user: data.user)
        case .onUserLeft:
            let data = try ServerFrame.decodePushData(UserLeftData.self, from: frame)
            self = .userLeft(sessionId: data.sessionId, user: data.user)
        case .onUserListChanged:
            let data = try ServerFrame.decodePushData(UserListChangedData.self, from: frame)
            self = .userListChanged(sessionId: data.sessionId, participants: data.participants)
        case .onUserMuted:
            let data = try ServerFrame.decodePushData(UserMutedData.self, from: frame)
            self = .userMuted(
                sessionId: data.sessionId, user: data.user, audioMuted: data.audioMuted, videoMuted: data.videoMuted)
        case .onRecordingToggled:
            let data = try ServerFrame.decodePushData(RecordingToggledData.self, from: frame)
            self = .recordingToggled(sessionId: data.sessionId, recordingStarted: data.recordingStarted, user: data.user)
        case .onCallSwitchedToVideo:
            let data = try ServerFrame.decodePushData(CallSwitchedToVideoData.self, from: frame)
            self = .callSwitchedToVideo(sessionId: data.sessionId, requestedBy: data.requestedBy)
        case .onSessionTimeout:
            let data = try ServerFrame.decodePushData(SessionTimeoutData.self, from: frame)
            self = .sessionTimeout(sessionId: data.sessionId)
        case .onCallEnded:
            let data = try ServerFrame.decodePushData(CallEndedData.self, from: frame)
            self = .callEnded(sessionId: data.sessionId)
        }
    }
}
