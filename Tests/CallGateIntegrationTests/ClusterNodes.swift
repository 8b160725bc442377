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

/// Rows of `sql` on `database` (through psql), each a `|`-separated line.
func databaseRows(_ database: String, _ sql: String) async throws -> [String] {
    let run = try await CommandRun.run(["psql", database, "-At", "-c", sql])
    guard run.exitCode == 0 else { throw GatewayProcess.StartFailure(description: "psql: \(run)") }
    return run.output.split(separator: "\n").map(String.init)
}

/// A `psql` session holding `LOCK TABLE <table> IN <mode> MODE` in an open transaction until
/// `release`: with `EXCLUSIVE`, no other session can write the table (a commit that cannot
/// happen); with `ACCESS EXCLUSIVE`, not even read it (a read that cannot answer).
final class TableLockHolder {
    private let process = Process()
    private let input = Pipe()

    /// Returns once the lock is held (the session printed the lock's completion).
    init(database: String, table: String, mode: String = "EXCLUSIVE") throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", database, "-q", "-v", "ON_ERROR_STOP=1"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN; LOCK TABLE \(table) IN \(mode) MODE; SELECT 'locked';\n".utf8))
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw GatewayProcess.StartFailure(description: "psql could not lock \(table): \(String(decoding: seen, as: UTF8.self))")
            }
            seen.append(chunk)
        }
    }

    /// Rolls the transaction back and ends the session.
    func release() {
        input.fileHandleForWriting.write(Data("ROLLBACK;\n\\q\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
