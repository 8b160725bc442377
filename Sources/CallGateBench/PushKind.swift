import CallGateProtocol

/// The pushes the generator reacts to; anything else is `other`.
public enum PushKind: Sendable, Equatable {
    case incomingCallReceived
    case outgoingCallAccepted
    case outgoingCallRejected
    case incomingCallCanceled
    case callEndedMessageReceived
    case other

    private static let names: [(PushKind, [UInt8])] = [
        (.incomingCallReceived, Array(EventName.onIncomingCallReceived.rawValue.utf8)),
        (.incomingCallCanceled, Array(EventName.onIncomingCallCanceled.rawValue.utf8)),
        (.outgoingCallAccepted, Array(EventName.onOutgoingCallAccepted.rawValue.utf8)),
        (.callEndedMessageReceived, Array(EventName.onCallEndedMessageReceived.rawValue.utf8)),
        (.outgoingCallRejected, Array(EventName.onOutgoingCallRejected.rawValue.utf8)),
    ]

    /// The kind of a push frame's event.
    public init(_ fields: FrameFields) {
        for (kind, name) in Self.names where fields.eventIs(name) {
            self = kind
            return
        }
        self = .other
    }
}
