/// The `data` of `onIncomingCallReceived`: a call now rings this device.
public struct IncomingCallReceivedData: Codable, Hashable, Sendable {
    /// The ringing call.
    public var call: Call

    /// Makes the push data.
    public init(call: Call) {
        self.call = call
    }
}
