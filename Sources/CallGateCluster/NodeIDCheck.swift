import CHiredis
import Foundation

/// Before a node takes back its open calls at start, makes sure no live process holds its id: a
/// node restarted right after a crash finds its own lease from the crashed run and waits for
/// it to lapse; a second process started under a live node's id gives up instead of taking
/// that node's calls. Blocking (hiredis's synchronous API): call off the service thread.
public enum NodeIDCheck {
    /// Why the id cannot be used now.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns once `nodeID`'s lease is free, polling every 200 ms for up to `wait` (a lapsing
    /// lease is at most one lease long); throws `Refusal` when it is still held, or when Redis
    /// cannot be reached within `wait`.
    public static func waitUntilFree(_ nodeID: String, redis endpoint: RedisEndpoint, wait: Duration) throws {
        let deadline = ContinuousClock.now + wait
        var lastProblem = "no answer"
        while true {
            switch holder(of: nodeID, redis: endpoint) {
            case .success(nil):
                return
            case .success(let holder?):
                lastProblem = "node id \(nodeID) is held by a live process (lease \(holder))"
            case .failure(let problem):
                lastProblem = problem.description
            }
            guard ContinuousClock.now < deadline else { throw Refusal(description: lastProblem) }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// The lease value held under `nodeID`, nil when none.
    private static func holder(of nodeID: String, redis endpoint: RedisEndpoint) -> Result<String?, Refusal> {
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), timeval(tv_sec: 1, tv_usec: 0)) else {
            return .failure(Refusal(description: "cannot reach Redis at \(endpoint)"))
        }
        defer { redisFree(context) }
        if context.pointee.err != 0 {
            return .failure(Refusal(description: "cannot reach Redis at \(endpoint): \(String(cString: &context.pointee.errstr.0))"))
        }
        var commands: [[String]] = []
        if let password = endpoint.password {
            commands.append(["AUTH"] + (endpoint.user.map { [$0] } ?? []) + [password])
        }
        if endpoint.database != 0 {
            commands.append(["SELECT", String(endpoint.database)])
        }
        commands.append(["GET", ClusterKeys.node(nodeID)])
        var last: RedisReply = .null
        for command in commands {
            let raw = RedisArguments.withArgv(command.map { Array($0.utf8) }) { redisCommandArgv(context, $0, $1, $2) }
            guard let raw else {
                return .failure(Refusal(description: "no reply from Redis at \(endpoint) to \(command[0])"))
            }
            last = RedisReply(copying: raw.assumingMemoryBound(to: redisReply.self))
            freeReplyObject(raw)
            if case .error(let message) = last {
                return .failure(Refusal(description: "Redis at \(endpoint) refused \(command[0]): \(message)"))
            }
        }
        return .success(last.text)
    }
}
