/// What a bench run does once its sockets are connected.
public enum Scenario: String, CaseIterable, Sendable, Codable {
    /// Hold every socket authenticated and silent for the duration.
    case idle
    /// Pairs of users ring each other at `rate` calls per second: initiate, incoming, accept, end.
    case ring
    /// Groups of `groupSize` users; one member rings the group at `rate` rings per second and
    /// cancels once every other member got the call.
    case group
    /// Half the sockets ring in pairs at `rate` calls per second while the other half disconnect
    /// and reconnect at `rate` sockets per second.
    case churn
}
