import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Synchronization
import Testing
import TestSupport

/// A cluster node while its PostgreSQL is down: a call started before the node saw the outage
/// waits for the database, unanswered; new calls are refused with ERR_STORE_UNAVAILABLE; once
/// the server is back the held calls are answered, new ones start, and every call is logged
/// once under an id of its own.
@Suite(.serialized) struct ClusterCallIDOutageTests {
    static let secret = "cluster-call-id-outage-secret"

    @Test func newCallsAreRefusedWhilePostgresIsDownAndHeldOnesGoOnWithIt() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let postgres = try await offPool { try ThrowawayPostgres() }
        defer { postgres.stop() }
        let database = try await offPool { try postgres.createDatabase("ids") } + "?sslmode=disable"
        let node = try GatewayProcess.clusterNode(
            "a", redis: redis, database: database, secret: Self.secret, ["--max-calls-per-minute", "1000"])
        defer { node.kill() }
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        var callers = 0
        func caller() async throws -> CallGateClient {
            callers += 1
            let client = try await CallGateClient.open(host: "127.0.0.1", port: node.port, loop: loop)
            _ = try await client.connect(token: try await tokens.mint(user: User(uid: "caller\(callers)", name: "Caller"), ttl: 600).token)
            return client
        }

        try await offPool { postgres.shutDown() }
        // A call started before the node saw the database gone waits for it, heard by nobody;
        // once the node knows, new calls are refused at once.
        var held: [Task<Call, any Error>] = []
        var refused = false
        while held.count < 50, !refused {
            let client = try await caller()
            let outcome = Outcome()
            let attempt = Task { () throws -> Call in
                do {
                    let call = try await client.initiateCall(to: "nobody-online")
                    outcome.settle(.success(call))
                    return call
                } catch {
                    outcome.settle(.failure(error))
                    throw error
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            guard let settled = outcome.result else {
                held.append(attempt)
                continue
            }
            if case .failure(let error as ErrorBody) = settled {
                #expect(error.code == .storeUnavailable, "\(error)")
                refused = true
            } else {
                Issue.record("a call was answered while the database was down: \(settled)")
            }
        }
        #expect(refused, "with the database down, new calls are refused")
        #expect(!held.isEmpty, "the call that found the outage waits for the database")

        try await offPool { try postgres.start() }
        let deadline = ContinuousClock.now + .seconds(20)
        var recovered = false
        let late = try await caller()
        while !recovered, ContinuousClock.now < deadline {
            do {
                _ = try await late.initiateCall(to: "nobody-online")
                recovered = true
            } catch let error as ErrorBody {
                #expect(error.code == .storeUnavailable, "\(error)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(recovered, "once the database is back the node takes calls again")
        // A held call is answered once it is durable; one that waited for a call id the node
        // could not reserve was refused, and is nowhere.
        var answered = 0
        for attempt in held {
            switch await attempt.result {
            case .success(let call):
                #expect(call.callStatus == .initiated)
                answered += 1
            case .failure(let error):
                #expect((error as? ErrorBody)?.code == .storeUnavailable, "\(error)")
            }
        }

        let expected = answered + 1
        var counts: [String] = []
        let written = try await eventually(within: 20) {
            counts = try await databaseRows(database, "SELECT count(*) || ' ' || count(DISTINCT id) FROM calls")
            return counts == ["\(expected) \(expected)"]
        }
        #expect(written, "every call logged once, each under its own id: \(counts)\n\(node.log.text)")
    }

    /// What an op ended with, once it did.
    private final class Outcome: Sendable {
        private let settled = Mutex<Result<Call, any Error>?>(nil)

        func settle(_ result: Result<Call, any Error>) {
            settled.withLock { $0 = result }
        }

        var result: Result<Call, any Error>? {
            settled.withLock { $0 }
        }
    }
}
