/// Whether a call rings one user or every member of a group.
public enum ReceiverType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A 1:1 call; `receiverId` is a uid.
    case user
    /// A group call; `receiverId` is a guid.
    case group
}
