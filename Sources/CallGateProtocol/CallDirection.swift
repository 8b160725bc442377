/// Which way a call went, seen from the user who reads the call log.
public enum CallDirection: String, Codable, Hashable, Sendable, CaseIterable {
    /// Someone else initiated it.
    case incoming
    /// The reader initiated it.
    case outgoing
}
