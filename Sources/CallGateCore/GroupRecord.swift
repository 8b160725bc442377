import CallGateProtocol

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
