/// A group as the wire shows it inside a call: its members are not listed, only counted.
public struct Group: Codable, Hashable, Sendable {
    public var guid: String
    public var name: String
    public var icon: String?
    public var membersCount: Int

    public init(guid: String, name: String, icon: String? = nil, membersCount: Int) {
        self.guid = guid
        self.name = name
        self.icon = icon
        self.membersCount = membersCount
    }
}
