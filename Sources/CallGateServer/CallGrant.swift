/// What a verified call token grants: this uid may join this session.
public struct CallGrant: Equatable, Sendable {
    public var uid: String
    public var sessionId: String

    public init(uid: String, sessionId: String) {
        self.uid = uid
        self.sessionId = sessionId
    }
}
