/// A server push: an event about a call or a session, sent to devices that did not cause it.
public enum Push: Hashable, Sendable {
    /// `onIncomingCallReceived`: the call rings the device.
    case incomingCallReceived(call: Call)
    /// `onOutgoingCallAccepted`: `by` answered the call.
    case outgoingCallAccepted(call: Call, by: User)
    /// `onOutgoingCallRejected`: declined or busy (`by` set) or unanswered (`by` nil).
    case outgoingCallRejected(call: Call, by: User?)
    /// `onIncomingCallCanceled`: the call stopped ringing the device.
    case incomingCallCanceled(call: Call, reason: CancelReason)
    /// `onCallEndedMessageReceived`: `by` left or ended the answered call.
    case callEndedMessageReceived(call: Call, by: User, reason: EndReason)
    /// `onUserJoined`: `user` joined the session.
    case userJoined(sessionId: String, user: User)
    /// `onUserLeft`: `user` left the session or was removed from it.
    case userLeft(sessionId: String, user: User)
    /// `onUserListChanged`: the session's participants after a join or a leave.
    case userListChanged(sessionId: String, participants: [Participant])
    /// `onUserMuted`: `user`'s mute state now.
    case userMuted(sessionId: String, user: User, audioMuted: Bool, videoMuted: Bool)
    /// `onRecordingToggled`: `user` started (`recordingStarted` true) or stopped the recording.
    case recordingToggled(sessionId: String, recordingStarted: Bool, user: User)
    /// `onCallSwitchedToVideo`: `requestedBy` made the session's call a video call.
    case callSwitchedToVideo(sessionId: String, requestedBy: User)
    /// `onSessionTimeout`: this user was alone in the session too long and was removed.
    case sessionTimeout(sessionId: String)
    /// `onCallEnded`: the session is over.
    case callEnded(sessionId: String)

    /// The event name this push is sent under.
    public var event: EventName {
        switch self {
        case .incomingCallReceived: .onIncomingCallReceived
        case .outgoingCallAccepted: .onOutgoingCallAccepted
        case .outgoingCallRejected: .onOutgoingCallRejected
        case .incomingCallCanceled: .onIncomingCallCanceled
        case .callEndedMessageReceived: .onCallEndedMessageReceived
        case .userJoined: .onUserJoined
        case .userLeft: .onUserLeft
        case .userListChanged: .onUserListChanged
        case .userMuted: .onUserMuted
        case .recordingToggled: .onRecordingToggled
        case .callSwitchedToVideo: .onCallSwitchedToVideo
        case .sessionTimeout: .onSessionTimeout
        case .callEnded: .onCallEnded
        }
    }

    /// The id of the call or session the push is about, so a client can route any push by it.
    public var sessionId: String {
        switch self {
        case .incomingCallReceived(let call),
             .outgoingCallAccepted(let call, _),
             .outgoingCallRejected(let call, _),
             .incomingCallCanceled(let call, _),
             .callEndedMessageReceived(let call, _, _):
            call.sessionId
        case .userJoined(let sessionId, _),
             .userLeft(let sessionId, _),
             .userListChanged(let sessionId, _),
             .userMuted(let sessionId, _, _, _),
             .recordingToggled(let sessionId, _, _),
             .callSwitchedToVideo(let sessionId, _),
             .sessionTimeout(let sessionId),
             .callEnded(let sessionId):
            sessionId
        }
    }
}
