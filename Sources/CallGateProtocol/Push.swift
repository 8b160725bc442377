/// A server push: an event about a call, sent to devices that did not cause it.
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

    /// The event name this push is sent under.
    public var event: EventName {
        switch self {
        case .incomingCallReceived: .onIncomingCallReceived
        case .outgoingCallAccepted: .onOutgoingCallAccepted
        case .outgoingCallRejected: .onOutgoingCallRejected
        case .incomingCallCanceled: .onIncomingCallCanceled
        case .callEndedMessageReceived: .onCallEndedMessageReceived
        }
    }

    /// The call the push is about.
    public var call: Call {
        switch self {
        case .incomingCallReceived(let call),
             .outgoingCallAccepted(let call, _),
             .outgoingCallRejected(let call, _),
             .incomingCallCanceled(let call, _),
             .callEndedMessageReceived(let call, _, _):
            call
        }
    }
}
