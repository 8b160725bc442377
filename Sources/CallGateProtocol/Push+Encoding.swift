import Foundation

extension Push {
    /// The push as one complete frame, `{"event": ..., "data": {...}}`.
    ///
    /// Encode each push once and share the bytes among all its recipients.
    public func encodedFrame() -> Data {
        switch self {
        case .incomingCallReceived(let call):
            frame(IncomingCallReceivedData(call: call))
        case .outgoingCallAccepted(let call, let by):
            frame(OutgoingCallAcceptedData(call: call, by: by))
        case .outgoingCallRejected(let call, let by):
            frame(OutgoingCallRejectedData(call: call, by: by))
        case .incomingCallCanceled(let call, let reason):
            frame(IncomingCallCanceledData(call: call, reason: reason))
        case .callEndedMessageReceived(let call, let by, let reason):
            frame(CallEndedMessageReceivedData(call: call, by: by, reason: reason))
        case .userJoined(let sessionId, let user):
            frame(UserJoinedData(sessionId: sessionId, user: user))
        case .userLeft(let sessionId, let user):
            frame(UserLeftData(sessionId: sessionId, user: user))
        case .userListChanged(let sessionId, let participants):
            frame(UserListChangedData(sessionId: sessionId, participants: participants))
        case .userMuted(let sessionId, let user, let audioMuted, let videoMuted):
            frame(UserMutedData(sessionId: sessionId, user: user, audioMuted: audioMuted, videoMuted: videoMuted))
        case .recordingToggled(let sessionId, let recordingStarted, let user):
            frame(RecordingToggledData(sessionId: sessionId, recordingStarted: recordingStarted, user: user))
        case .callSwitchedToVideo(let sessionId, let requestedBy):
            frame(CallSwitchedToVideoData(sessionId: sessionId, requestedBy: requestedBy))
        case .sessionTimeout(let sessionId):
            frame(SessionTimeoutData(sessionId: sessionId))
        case .callEnded(let sessionId):
            frame(CallEndedData(sessionId: sessionId))
        }
    }

    private func frame(_ data: some Codable) -> Data {
        WireJSON.encode(PushEnvelope(event: event.rawValue, data: data))
    }
}
