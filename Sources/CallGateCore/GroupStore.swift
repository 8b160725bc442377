import CallGateProtocol

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

/// A group with its full member list, as the group store keeps it.
public struct GroupRecord: Codable, Hashable, Sendable {
    /// The group's id in the app that manages it.
    public var guid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var icon: String?
    /// Member uids, unique, in the order they were added.
    public private(set) var members: [String]

    /// Makes a group; duplicate uids in `members` are kept once, in first-seen order.
    public init(guid: String, name: String, icon: String? = nil, members: [String]) {
        self.guid = guid
        self.name = name
        self.icon = icon
        self.members = []
        add(members)
    }

    /// The wire view of this group.
    public var summary: Group {
        Group(guid: guid, name: name, icon: icon, membersCount: members.count)
    }

    /// Adds the uids that are not members yet, keeping the order.
    public mutating func add(_ uids: [String]) {
        var known = Set(members)
        for uid in uids where known.insert(uid).inserted {
            members.append(uid)
        }
    }

    /// Removes a member; returns whether it was one.
    @discardableResult
    public mutating func remove(_ uid: String) -> Bool {
        guard let index = members.firstIndex(of: uid) else { return false }
        members.remove(at: index)
        return true
    }

    /// Whether `uid` is a member.
    public func contains(_ uid: String) -> Bool {
        members.contains(uid)
    }
}

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

    /// Holds exactly `groups` from now on.
    public func replaceAll(with groups: [GroupRecord]) {
        self.groups = Dictionary(groups.map { ($0.guid, $0) }) { _, last in last }
    }
}
