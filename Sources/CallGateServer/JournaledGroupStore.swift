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

    /// Cluster mode: puts `group` as another node saved it (nil: deleted) without noting a
    /// write, which that node made.
    func refresh(_ guid: String, to group: GroupRecord?) {
        if let group {
            groups.put(group)
        } else {
            groups.delete(guid)
        }
    }

    /// Cluster mode: holds exactly `groups` as saved now (reloaded after the node may have
    /// missed changes of other nodes), without noting writes.
    func refreshAll(to groups: [GroupRecord]) {
        self.groups.replaceAll(with: groups)
    }

    /// The changes since the last call, in order.
    func takeWrites() -> [StoreWrite] {
        defer { journal.removeAll(keepingCapacity: true) }
        return journal
    }
}
