/// The body of `GET /v3.0/calls/{sessionId}`: every call the asking user was part of under that
/// session id, newest first (a meeting id may hold several).
public struct CallLogDetailBody: Codable, Hashable, Sendable {
    /// The calls.
    public var data: [CallLog]

    /// Makes a detail body.
    public init(data: [CallLog]) {
        self.data = data
    }
}
