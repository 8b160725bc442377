/// A group store that keeps groups in a dictionary: the default until a persistent store is configured.
///
/// Not thread-safe: the service thread owns it.
public final class InMemoryGroupStore: GroupStore {
    private var groups: [String: GroupRecord] = [:]

    /// Makes a store holding `groups`.
    public init(_ groups: [GroupRecord] = []) {
        for group in groups {
            self.groups[group.guid] = group
        }
    }

    /// The group with this guid, if any.
    public func group(_ guid: String) -> GroupRecord? {
        groups[guid]
    }

    /// Creates or replaces a group.
    public func put(_ group: GroupRecord) {
        groups[group.guid] = group
    }

    /// Deletes a group; returns whether it existed.
    @discardableResult
    public func delete(_ guid: String) -> Bool {
        groups.removeValue(forKey: guid) != nil
    }
}
