import CHiredis
import Foundation

/// Claims this run's node id before the node takes back its open calls at start: the lease is
/// set only if nobody holds it (`SET NX`), so a node restarted right after a crash waits for its
/// old lease to lapse, and a second process started under a live node's id (or racing another
/// start under it) gives up instead of taking that node's calls. Blocking (hiredis's
/// synchronous API, with a timeout on every reply): call off the service thread.
public enum NodeIDClaim {
    /// Why the id cannot be claimed now.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Takes a node number and sets `nodeID`'s lease to `"<incarnation>|<number>"` for `hold`
    /// (long enough to cover the rest of the start; the heartbeat then keeps it), trying every
    /// 200 ms for up to `wait`. Returns the number; throws `Refusal` when the id stays held or
    /// Redis cannot be reached.
    public static func claim(
        _ nodeID: String, incarnation: String, redis endpoint: RedisEndpoint, hold: Duration, wait: Duration
    ) throws -> Int64 {
        var number: Int64?
        try setWhenFree(ClusterKeys.node(nodeID), redis: endpoint, hold: hold, wait: wait) { session in
            if number == nil {
                guard case .integer(let value) = try session.run(["INCR", ClusterKeys.nodeNumbers]) else {
                    throw Refusal(description: "Redis at \(endpoint) gave no node number")
                }
                number = value
            }
            return "\(incarnation)|\(number ?? 0)"
        } held: { holder in
            "node id \(nodeID) is held by a live process (lease \(holder))"
        }
        return number ?? 0
    }

    /// Takes the takeover lock of `nodeID` (`ClusterKeys.takeover`) before this run takes its
    /// own calls back, waiting while a survivor holds it (taking them over); its lease covers
    /// the start. Release it with `unlockTakeBack` once the calls are taken back. Throws
    /// `Refusal` when it stays held for `wait` or Redis cannot be reached.
    public static func lockTakeBack(_ nodeID: String, redis endpoint: RedisEndpoint, hold: Duration, wait: Duration) throws {
        try setWhenFree(ClusterKeys.takeover(of: nodeID), redis: endpoint, hold: hold, wait: wait) { _ in
            nodeID
        } held: { holder in
            "node \(holder) is taking over the calls of node \(nodeID)"
        }
    }

    /// Releases the takeover lock `lockTakeBack` took, if this node still holds it.
    public static func unlockTakeBack(_ nodeID: String, redis endpoint: RedisEndpoint) {
        guard let session = try? Session(endpoint, deadline: .now + .seconds(1)) else { return }
        defer { session.close() }
        _ = try? session.run(["EVAL", ClusterScripts.release.source, "1", ClusterKeys.takeover(of: nodeID), nodeID])
    }

    /// Sets `key` to the value `value` makes (on the session it is given) for `hold` unless the
    /// key exists (`SET NX`), trying every 200 ms for up to `wait`; throws `Refusal` with
    /// `held(holder)` when the key stays held, or why Redis could not be asked.
    private static func setWhenFree(
        _ key: String, redis endpoint: RedisEndpoint, hold: Duration, wait: Duration,
        value: (Session) throws -> String, held: (String) -> String
    ) throws {
        let deadline = ContinuousClock.now + wait
        var problem = "no answer"
        while true {
            do {
                let session = try Session(endpoint, deadline: deadline)
                defer { session.close() }
                switch try session.run(["SET", key, try value(session), "NX", "PX", String(hold.microseconds / 1000)]) {
                case .status:
                    return
                case .null:
                    problem = held((try? session.run(["GET", key]))?.text ?? "?")
                case let other:
                    problem = "Redis at \(endpoint) answered SET with \(other)"
                }
            } catch let refusal as Refusal {
                problem = refusal.description
            }
            guard ContinuousClock.now < deadline else { throw Refusal(description: problem) }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// Gives the lease back if this run still holds it (a start that failed after its claim).
    public static func release(_ nodeID: String, incarnation: String, number: Int64, redis endpoint: RedisEndpoint) {
        guard let session = try? Session(endpoint, deadline: .now + .seconds(1)) else { return }
        defer { session.close() }
        _ = try? session.run(["EVAL", ClusterScripts.release.source, "1", ClusterKeys.node(nodeID), "\(incarnation)|\(number)"])
    }

    /// One synchronous connection, logged in, every reply bounded by the deadline.
    private final class Session {
        private let context: UnsafeMutablePointer<redisContext>
        private let endpoint: RedisEndpoint

        init(_ endpoint: RedisEndpoint, deadline: ContinuousClock.Instant) throws {
            self.endpoint = endpoint
            let timeout = Self.timeval(until: deadline)
            guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), timeout) else {
                throw Refusal(description: "cannot reach Redis at \(endpoint)")
            }
            self.context = context
            if context.pointee.err != 0 {
                let reason = context.pointee.errorText
                redisFree(context)
                throw Refusal(description: "cannot reach Redis at \(endpoint): \(reason)")
            }
            // Without a socket timeout a Redis that accepts and never answers would block the start for good.
            _ = redisSetTimeout(context, timeout)
            do {
                for command in endpoint.loginCommands {
                    _ = try run(command)
                }
            } catch {
                redisFree(context)
                throw error
            }
        }

        func close() {
            redisFree(context)
        }

        /// One command's reply; throws on no reply (timeout, closed) and on an error reply.
        func run(_ command: [String]) throws -> RedisReply {
            let raw = RedisArguments.withArgv(command.map { Array($0.utf8) }) { redisCommandArgv(context, $0, $1, $2) }
            guard let raw else {
                throw Refusal(description: "no reply from Redis at \(endpoint) to \(command[0]): \(context.pointee.errorText)")
            }
            defer { freeReplyObject(raw) }
            let reply = RedisReply(copying: raw.assumingMemoryBound(to: redisReply.self))
            if case .error(let message) = reply {
                throw Refusal(description: "Redis at \(endpoint) refused \(command[0]): \(message)")
            }
            return reply
        }

        /// The time left until `deadline`, at least 100 ms.
        private static func timeval(until deadline: ContinuousClock.Instant) -> Glibc.timeval {
            let left = max(.milliseconds(100), deadline - .now).microseconds
            return Glibc.timeval(tv_sec: Int(left / 1_000_000), tv_usec: Int(left % 1_000_000))
        }
    }
}
