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
        }
    }
}
