/// How many calls and meetings each user started in the last minute, on every node together,
/// in Redis (`ClusterKeys.starts`: a sorted set of starts by time): the cluster's side of
/// `--max-calls-per-minute`, which each node's Core also holds for its own starts.
///
/// A start is counted when it is let through, atomically with the check (for `initiateCall`
/// in the busy claim's script, `BusyClaims.claim`; for a new meeting by `spend`), so that two
/// nodes cannot both let the last one through; an op that then fails for another reason gives
/// its start back (`refund`). Service thread only.
public final class CallStarts {
    /// One start of a user, counted against `limit` starts per `window`.
    public struct Start: Sendable {
        /// Its member in the set: unique per start.
        public let member: String
        /// When it was made (Unix ms).
        public let at: Int64
        public let limit: Int
        public let window: Duration

        /// A start now of at most `limit` per `window`.
        public init(limit: Int, window: Duration = .seconds(60), at: Int64 = BusSignature.wallClockMillis()) {
            member = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            self.at = at
            self.limit = limit
            self.window = window
        }

        /// The claim script's arguments for it.
        var arguments: [[UInt8]] {
            [
                Array(String(at).utf8), Array(String(window.microseconds / 1000).utf8), Array(String(limit).utf8),
                Array(member.utf8),
            ]
        }

        /// The claim script's arguments for an op that starts nothing.
        static let none: [[UInt8]] = [Array("0".utf8), Array("0".utf8), Array("0".utf8), Array("-".utf8)]
    }

    private let client: RedisClient

    public init(client: RedisClient) {
        self.client = client
    }

    /// Counts `start` for `uid` unless their starts are used up; `done` says whether it was
    /// counted, or why Redis could not be asked.
    public func spend(_ start: Start, by uid: String, then done: @escaping (Result<Bool, RedisFailure>) -> Void) {
        client.run(ClusterScripts.spendStart, keys: [ClusterKeys.starts(of: uid)], arguments: start.arguments) { result in
            done(result.flatMap { reply in
                guard let counted = reply.integer else { return .failure(.refused("spend-start answered \(reply)")) }
                return .success(counted == 1)
            })
        }
    }

    /// Gives `start` of `uid` back: the op it was counted for did not start anything.
    public func refund(_ start: Start, by uid: String) {
        client.send([Array("ZREM".utf8), Array(ClusterKeys.starts(of: uid).utf8), Array(start.member.utf8)]) { _ in }
    }
}
