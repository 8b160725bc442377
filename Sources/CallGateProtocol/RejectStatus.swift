/// The status a `rejectCall` asks for.
public enum RejectStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// The callee declines.
    case rejected
    /// The callee declines because they are busy.
    case busy
    /// The caller cancels before anyone answered.
    case cancelled
}
