/// Why a participant left an answered call (`onCallEndedMessageReceived.reason`).
public enum EndReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// The participant ended the call with `endCall`.
    case hungUp
    /// Every device of the participant disconnected and the grace period passed.
    case disconnected
}
