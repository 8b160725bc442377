import CallGateProtocol
import Foundation

/// How a user travels between the nodes of a cluster: in forwarded ops, device announcements
/// and the profiles kept in Redis, as the JSON of their `User`.
extension User {
    /// The user as JSON; nil if it cannot be encoded.
    var clusterJSON: [UInt8]? {
        (try? JSONEncoder().encode(self)).map(Array.init)
    }

    /// The user `bytes` hold; nil when they are no user's JSON.
    init?(clusterJSON bytes: [UInt8]) {
        guard let user = try? JSONDecoder().decode(User.self, from: Data(bytes)) else { return nil }
        self = user
    }
}
