import CallGateCore

/// The service thread's group table: reads come from memory, and every change is also noted as
/// a store write for the service to hand to the writer.
///
/// Service thread only.
final class JournaledGroupStore: GroupStore {
    private let groups: InMemoryGroupStore
    /// Changes not yet taken by `takeWrites`, in order.
    private var journal: [StoreWrite] = []

    /// A table holding `groups`, as loaded from the store.
    init(_ groups: [GroupRecord]) {
        self.groups = InMemoryGroupStore(groups)
    }

    /// The group with this guid, if any.
    func group(_ guid: String) -> GroupRecord? {
        groups.group(guid)
    }

    /// Creates or replaces a group, and notes the write.
    func put(_ group: GroupRecord) {
        groups.put(group)
        journal.append(.putGroup(group))
    }

    /// Deletes a group, and notes the write when it existed.
    @discardableResult
    func delete(_ guid: String) -> Bool {
        let existed = groups.delete(guid)
        if existed {
            journal.append(.deleteGroup(guid))
        }
        return existed
    }

    /// The changes since the last call, in order.
    func takeWrites() -> [StoreWrite] {
        defer { journal.removeAll(keepingCapacity: true) }
        return journal
    }
}
