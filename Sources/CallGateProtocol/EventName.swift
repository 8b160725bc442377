/// The name of a server push, as sent in the frame's `event` field. Names follow the calling SDKs.
public enum EventName: String, Codable, Hashable, Sendable, CaseIterable {
    /// A call rings this device.
    case onIncomingCallReceived
    /// A callee answered the caller's call.
    case onOutgoingCallAccepted
    /// The caller's call was declined, found the callee busy, or was not answered in time.
    case onOutgoingCallRejected
    /// A call that rang this device stopped ringing.
    case onIncomingCallCanceled
    /// A participant left (or ended) an answered call.
    case onCallEndedMessageReceived
    /// A user joined a session this device's user is in.
    case onUserJoined
    /// A user left a session this device's user is in.
    case onUserLeft
    /// The participant list of a session changed (after every join and leave).
    case onUserListChanged
    /// A participant muted or unmuted their audio or video.
    case onUserMuted
    /// A participant started or stopped the recording of a session.
    case onRecordingToggled
    /// A participant turned the session's audio call into a video call.
    case onCallSwitchedToVideo
    /// This user was alone in a session for their idle timeout and was removed from it.
    case onSessionTimeout
    /// The session is over.
    case onCallEnded
}
