/// One change for the store; the writer applies a batch of them in one transaction, in order.
public enum StoreWrite: Hashable, Sendable, Codable {
    /// Creates or replaces the call with this record's id.
    case call(CallLogRecord)
    /// Creates or replaces a group.
    case putGroup(GroupRecord)
    /// Deletes a group (nothing happens if it does not exist).
    case deleteGroup(String)
}
