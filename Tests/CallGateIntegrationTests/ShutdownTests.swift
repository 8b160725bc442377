import CallGateClient
import CallGateCore
import CallGateProtocol
import CallGateServer
import CallGateStoreSQLite
import Foundation
import Testing
import TestSupport

/// SIGTERM and SIGINT on the real executable: a drain spread over `--drain-seconds` (SIGTERM),
/// sockets closed with 1012 and the reconnect hint, the call kept for the next start, exit 0
/// within the shutdown timeout. The stop's own bounds are tested with SIGINT, which does not drain.
@Suite("Graceful shutdown of the real process")
struct ShutdownTests {
    static let secret = "shutdown-test-secret"

    /// With `--drain-seconds 0` (the tests' default), SIGTERM closes every socket at once, as
    /// SIGINT does.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalClosesEverySocketWith1012KeepsTheCallAndExitsZero(_ signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("callgate.sqlite")
        let gateway = try GatewayProcess(arguments: ["--database", database, "--jwt-secret", Self.secret, "--admin-key", "k"])
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let alice = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        _ = try await alice.connect(token: try await tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 600).token)
        let bob = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        _ = try await bob.connect(token: try await tokens.mint(user: User(uid: "bob", name: "Bob"), ttl: 600).token)
        let call = try await alice.establishCall(with: bob, uid: "bob")

        gateway.send(signal)
        #expect(try await alice.expectClose() == CloseCode.serviceRestart)
        #expect(try await bob.expectClose() == CloseCode.serviceRestart)
        #expect(try await gateway.exitStatus(within: .seconds(10)) == 0)

        let open = try SQLiteCallLogStore(path: database).openCalls()
        #expect(open.map(\.sessionId) == [call.sessionId], "the call is resumed on the next start")
        #expect(open.first?.callStatus == .ongoing)
    }

    /// A peer that stopped reading (its buffers full, so the 1012 cannot go out) holds the
    /// shutdown for half of `--shutdown-timeout` at most; meanwhile new connections are turned
    /// away, and the process still exits 0 within the timeout.
    @Test func aStuckPeerCannotHoldTheShutdownAndNewSocketsAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let gateway = try GatewayProcess(arguments: [
            "--database", directory.path("callgate.sqlite"), "--jwt-secret", Self.secret, "--admin-key", "k",
            "--shutdown-timeout", "4", "--max-queued-frames", "100000", "--max-messages-per-second", "0",
            "--max-calls-per-minute", "100000",
        ])
        let tokens = try await TokenService(secret: Self.secret)
        let stuck = try await RawWebSocket.open(port: gateway.port, receiveBufferBytes: 4096)
        #expect(try await stuck.connect(token: try await tokens.mint(user: User(uid: "bob", name: "Bob"), ttl: 600).token).contains(#""result""#))
        let loop = try ClientLoop()
        defer { loop.stop() }
        let alice = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        _ = try await alice.connect(token: try await tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 600).token)
        let padding: [String: JSONValue] = ["note": .string(String(repeating: "n", count: 4000))]
        for _ in 0..<400 {
            let call = try await alice.initiateCall(to: "bob", metadata: padding)
            _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
        }

        let signalled = ContinuousClock.now
        gateway.send(SIGINT)
        #expect(try await alice.expectClose() == CloseCode.serviceRestart)
        let late = try? await RawWebSocket.open(port: gateway.port)
        #expect(late?.status != 101, "no upgrade once the shutdown began")
        #expect(try await gateway.exitStatus(within: .seconds(8)) == 0)
        let took = ContinuousClock.now - signalled
        #expect(took >= .seconds(1), "the stuck socket had its grace period: \(took)")
        #expect(took < .seconds(4) + .milliseconds(500), "within the shutdown timeout: \(took)")
        withExtendedLifetime(stuck) {}
    }

    /// A call log write blocked on the database (another process holds its write lock, and the
    /// store waits up to 5 s for it) cannot hold the process past `--shutdown-timeout`: it ends
    /// with status 1 when the time runs out.
    @Test func aShutdownStuckOnTheDatabaseEndsWithStatus1AtTheTimeout() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("callgate.sqlite")
        let gateway = try GatewayProcess(arguments: [
            "--database", database, "--jwt-secret", Self.secret, "--admin-key", "k", "--shutdown-timeout", "2",
        ])
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let alice = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
        _ = try await alice.connect(token: try await tokens.mint(user: User(uid: "alice", name: "Alice"), ttl: 600).token)

        let lock = Process()
        lock.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        lock.arguments = [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); sys.stdin.read()",
            database,
        ]
        let input = Pipe()
        let output = Pipe()
        lock.standardInput = input
        lock.standardOutput = output
        try lock.run()
        defer {
            try? input.fileHandleForWriting.close()
            lock.waitUntilExit()
        }
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))

        // The call's write stays stuck, and so does its reply (it waits for the write).
        let unanswered = Task { try await alice.initiateCall(to: "bob") }
        try await Task.sleep(for: .milliseconds(300))
        let signalled = ContinuousClock.now
        gateway.send(SIGINT)
        #expect(try await alice.expectClose() == CloseCode.serviceRestart)
        #expect(try await gateway.exitStatus(within: .seconds(10)) == 1)
        let took = ContinuousClock.now - signalled
        #expect(took < .seconds(3) + .milliseconds(500), "cut at the 2 s timeout, not after the 5 s busy wait: \(took)")
        #expect((try? await unanswered.value) == nil, "nobody was told of a call the store never had")
    }
}
