/// The `data` of `onIncomingCallCanceled`: a call stopped ringing this device.
public struct IncomingCallCanceledData: Codable, Hashable, Sendable {
    /// The call as it stands now.
    public var call: Call
    /// Why it stopped ringing.
    public var reason: CancelReason

    /// Makes the push data.
    public init(call: Call, reason: CancelReason) {
        self.call = call
        self.reason = reason
    }
}
