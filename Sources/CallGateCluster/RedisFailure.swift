/// Why a command got no reply from Redis. (A reply that is a Redis error, such as `WRONGTYPE`,
/// is a reply: `RedisReply.error`.)
public enum RedisFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// There was no connection to send it on: it did not run.
    case notConnected(String)
    /// The connection went down, or the reply was late and the connection was dropped, before
    /// the reply came: it may have run or not.
    case lost(String)
    /// Redis answered with an error or with a reply of the wrong shape: the command or script
    /// did not do what was asked.
    case refused(String)

    public var description: String {
        switch self {
        case .notConnected(let reason): "not connected to Redis (\(reason))"
        case .lost(let reason): "no reply from Redis (\(reason))"
        case .refused(let reason): "Redis refused (\(reason))"
        }
    }
}
