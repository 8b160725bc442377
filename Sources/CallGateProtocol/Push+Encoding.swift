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
        }
    }

    private func frame(_ data: some Codable) -> Data {
        WireJSON.encode(PushEnvelope(event: event.rawValue, data: data))
    }
}
