/// A person as the wire shows them: who rings, who answers, who ended a call.
///
/// Built from the claims of the connection token (`sub`, `name`, `avatar`).
public struct User: Codable, Hashable, Sendable {
    /// The user's id in the app that issued the token.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?

    /// Makes a user.
    public init(uid: String, name: String, avatar: String? = nil) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
    }
}

/// A group as the wire shows it inside a call: its members are not listed, only counted.
public struct Group: Codable, Hashable, Sendable {
    /// The group's id in the app that manages it.
    public var guid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var icon: String?
    /// How many members the group had when the call started.
    public var membersCount: Int

    /// Makes a group summary.
    public init(guid: String, name: String, icon: String? = nil, membersCount: Int) {
        self.guid = guid
        self.name = name
        self.icon = icon
        self.membersCount = membersCount
    }
}
