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
