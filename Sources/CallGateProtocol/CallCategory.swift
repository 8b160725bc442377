/// The kind of session a call belongs to.
public enum CallCategory: String, Codable, Hashable, Sendable, CaseIterable {
    /// A ringing call, and the session it becomes.
    case call
    /// A standalone session joined directly (a meeting link), without ringing.
    case meet
}
