/// Where group membership lives. The Core reads it when a group is rung; the admin API writes it.
///
/// Implementations are used from the service thread only.
public protocol GroupStore: AnyObject {
    /// The group with this guid, if any.
    func group(_ guid: String) -> GroupRecord?
    /// Creates or replaces a group.
    func put(_ group: GroupRecord)
    /// Deletes a group; returns whether it existed.
    @discardableResult
    func delete(_ guid: String) -> Bool
}
