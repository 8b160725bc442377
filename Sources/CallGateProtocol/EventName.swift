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
}
