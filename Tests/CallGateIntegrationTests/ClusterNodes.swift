import Foundation
import TestSupport

/// What the cluster tests share: nodes as real `callgate serve --cluster` processes, waiting for a
/// condition, and SQL on the database the nodes share.
extension GatewayProcess {
    /// Node `id` of the cluster on `redis` (connecting with `redisURL`, default its URL) and
    /// `database`, signing tokens with `secret` and sealing its messages with `clusterSecret`;
    /// `extra` flags are added.
    static func clusterNode(
        _ id: String, redis: ThrowawayRedis, redisURL: String? = nil, database: String, secret: String,
        clusterSecret: String = GatewayProcess.clusterSecret, _ extra: [String] = []
    ) throws -> GatewayProcess {
        try GatewayProcess(arguments: [
            "--cluster", redisURL ?? redis.url, "--database", database, "--node-id", id, "--jwt-secret", secret,
            "--cluster-secret", clusterSecret,
        ] + extra)
    }

    /// The cluster secret of the tests' nodes.
    static let clusterSecret = "cluster-tests-bus-secret-0123456789abcdef"
}

/// Polls `condition` every 50 ms for up to `seconds`; whether it came true.
func eventually(within seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// Rows of `sql` on `database` (through psql), each a `|`-separated line.
func databaseRows(_ database: String, _ sql: String) async throws -> [String] {
    let run = try await CommandRun.run(["psql", database, "-At", "-c", sql])
    guard run.exitCode == 0 else { throw GatewayProcess.StartFailure(description: "psql: \(run)") }
    return run.output.split(separator: "\n").map(String.init)
}
