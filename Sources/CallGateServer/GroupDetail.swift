import CallGateCore

/// A group as the admin API returns it: `{"guid", "name", "icon"?, "membersCount", "members"}`.
///
/// A plain value; any thread.
public struct GroupDetail: Codable, Equatable, Sendable {
    /// The group id.
    public var guid: String
    /// The display name.
    public var name: String
    /// Omitted from the JSON when absent.
    public var icon: String?
    /// How many members; always `members.count`.
    public var membersCount: Int
    /// Member uids in the order they were added.
    public var members: [String]

    /// The admin view of a stored group.
    public init(_ record: GroupRecord) {
        guid = record.guid
        name = record.name
        icon = record.icon
        membersCount = record.members.count
        members = record.members
    }
}
