/// The kind of session a call belongs to.
public enum CallCategory: String, Codable, Hashable, Sendable, CaseIterable {
    /// A ringing call: the only category this gateway produces so far.
    case call
    /// A direct-join meeting, reserved for a later protocol version.
    case meet
}
