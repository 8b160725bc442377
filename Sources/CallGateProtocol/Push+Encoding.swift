import Foundation

extension Push {
    /// The push as one complete frame, `{"event": ..., "data": {...}}`.
    ///
    /// Encode each push once and share the bytes among all its recipients. Throws only for a
    /// push whose free-form parts cannot be written as JSON (see `WireJSON.encode`).
    public func encodedFrame() throws(FrameEncodingError) -> Data {
        switch self {
        case .incomingCallReceived(let call):
            try frame(IncomingCallReceivedData(call: call))
        case .outgoingCallAccepted(let call, let by):
            try frame(OutgoingCallAcceptedData(call: call, by: by))
        case .outgoingCallRejected(let call, let by):
            try frame(OutgoingCallRejectedData(call: call, by: by))
        case .incomingCallCanceled(let call, let reason):
            try frame(IncomingCallCanceledData(call: call, reason: reason))
        case .callEndedMessageReceived(let call, let by, let reason):
            try frame(CallEndedMessageReceivedData(call: call, by: by, reason: reason))
        case .userJoined(let sessionId, let user):
            try frame(UserJoinedData(sessionId: sessionId, user: user))
        case .userLeft(let sessionId, let user):
            try frame(UserLeftData(sessionId: sessionId, user: user))
        case .userListChanged(let sessionId, let participants):
            try frame(UserListChangedData(sessionId: sessionId, participants: participants))
        case .userMuted(let sessionId, let user, let audioMuted, let videoMuted):
            try frame(UserMutedData(sessionId: sessionId, user: user, audioMuted: audioMuted, videoMuted: videoMuted))
        case .recordingToggled(let sessionId, let recordingStarted, let user):
            try frame(RecordingToggledData(sessionId: sessionId, recordingStarted: recordingStarted, user: user))
        case .callSwitchedToVideo(let sessionId, let requestedBy):
            try frame(CallSwitchedToVideoData(sessionId: sessionId, requestedBy: requestedBy))
        case .sessionTimeout(let sessionId):
            try frame(SessionTimeoutData(sessionId: sessionId))
        case .callEnded(let sessionId):
            try frame(CallEndedData(sessionId: sessionId))
        }
    }

    private func frame(_ data: some Codable) throws(FrameEncodingError) -> Data {
        try WireJSON.encode(PushEnvelope(event: event.rawValue, data: data))
    }
}
