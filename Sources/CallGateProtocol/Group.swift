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
