import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import GRDB
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The call log's promise: a terminal status any client received is in the log after a SIGKILL
/// and a restart, exactly once. Runs the real executable on a real SQLite file and on a real
/// PostgreSQL database.
@Suite("Crash safety of the call log")
struct CrashSafetyTests {
    static let secret = "crash-test-secret"

    @Test(arguments: TestStore.allCases)
    func everyTerminalStatusAClientReceivedSurvivesSIGKILL(store: TestStore) async throws {
        let directory = try TemporaryDirectory()
        let database = try await store.database(in: directory)
        // The loops outrun the per-socket message rate on a fast machine; the kill must end them.
        let arguments = [
            "--database", database, "--jwt-secret", Self.secret, "--admin-key", "crash-admin",
            "--max-messages-per-second", "0",
        ]
        let first = try GatewayProcess(arguments: arguments)
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let witness = TerminalStatusWitness()

        let pairs = 8
        let devices = try await Self.connectPairs(pairs, port: first.port, tokens: tokens, loop: loop)

        // Calls go on in every pair until the process dies under them.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, pair) in devices.enumerated() {
                group.addTask { await Self.call(pair.0, pair.1, callee: "r\(index)", witness: witness).started }
            }
            try await Task.sleep(for: .milliseconds(3000))
            first.kill()
            var calls = 0
            for try await count in group {
                calls += count
            }
            #expect(calls > 0)
        }
        let seen = witness.statuses
        #expect(witness.contradictions.isEmpty, "\(witness.contradictions)")
        #expect(seen.count > 20, "the burst should have finished a good number of calls before the kill")

        // A new process on the same file: every witnessed status is there, once.
        let second = try GatewayProcess(arguments: arguments)
        try await Self.expectLoggedOnce(seen, pairs: pairs, port: second.port, tokens: tokens)
        #expect(second.terminate() == 0)
    }

    /// The unseen missed-call counts an SQLite store holds between writes (up to ten seconds): a
    /// SIGKILL while it holds some loses none of them, and the count a device is told after the
    /// restart has a higher revision than any told before, so no device keeps an older one.
    @Test func missedCallCountsHeldBetweenWritesSurviveSIGKILL() async throws {
        let directory = try TemporaryDirectory()
        let database = try await TestStore.sqlite.database(in: directory)
        let arguments = ["--database", database, "--jwt-secret", Self.secret, "--admin-key", "crash-admin"]
        let first = try GatewayProcess(arguments: arguments)
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        let (alice, _) = try await first.connect("alice", tokens: tokens, loop: loop)
        let (bob, _) = try await first.connect("bob", tokens: tokens, loop: loop)
        let file = try DatabaseQueue(path: database)
        var missed = 0
        var held = false
        // Missed calls until the store holds a count it has not written (the first may be written
        // at once: the interval since the store opened has passed).
        while !held, missed < 10 {
            let call = try await alice.initiateCall(to: "bob")
            _ = try await bob.expectPush()
            _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
            _ = try await bob.expectPush()
            missed += 1
            held = try await file.read { try Int64.fetchOne($0, sql: "SELECT recount_from FROM missed_count_state") } != nil
        }
        #expect(held, "the store wrote every count at once")
        first.kill()

        let second = try GatewayProcess(arguments: arguments)
        let (_, connected) = try await second.connect("bob", tokens: tokens, loop: loop)
        #expect(connected.missedCalls?.unseen == missed)
        #expect((connected.missedCalls?.revision ?? 0) > Int64(missed), "above every revision told before the kill")
        #expect(try await file.read { try Int64.fetchOne($0, sql: "SELECT recount_from FROM missed_count_state") } == nil)
        #expect(second.terminate() == 0)
    }

    /// Durability before output: while the store cannot commit, a new call rings nobody and its
    /// caller has no answer; killed then, the process takes a call nobody heard of with it. A
    /// call whose ring a device got is in the store: after a SIGKILL and a restart it still
    /// rings, can be answered, and is logged once.
    @Test func aCallIsHeardOfOnlyOnceItIsDurableAndOnceHeardOfItSurvivesSIGKILL() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("callgate.sqlite")
        let arguments = ["--database", path, "--jwt-secret", Self.secret, "--admin-key", "crash-admin"]
        let tokens = try await TokenService(secret: Self.secret)
        let loop = try ClientLoop()
        defer { loop.stop() }
        func device(_ uid: String, on gateway: GatewayProcess) async throws -> (CallGateClient, ConnectResult) {
            try await gateway.connect(uid, tokens: tokens, loop: loop)
        }

        let first = try GatewayProcess(arguments: arguments)
        let (alice, _) = try await device("alice", on: first)
        let (bob, _) = try await device("bob", on: first)
        let lock = try await WriteLockHolder.hold(path)
        let unanswered = Task { try await alice.initiateCall(to: "bob", timeout: 60) }
        await bob.expectSilence(for: .milliseconds(800))
        first.kill()
        await lock.unlock()
        #expect((try? await unanswered.value) == nil, "the caller was never told of the call")

        let second = try GatewayProcess(arguments: arguments)
        let (caller, _) = try await device("alice", on: second)
        let (callee, connected) = try await device("bob", on: second)
        #expect(connected.activeCalls.isEmpty, "the call nobody heard of is gone with the process")
        let aliceToken = try await tokens.mint(user: User(uid: "alice", name: "alice"), ttl: 600).token
        #expect(try await Self.everyCall(port: second.port, token: aliceToken).isEmpty)

        let call = try await caller.ring("bob", ringing: [callee], timeout: 60)
        second.kill()
        let third = try GatewayProcess(arguments: arguments)
        defer { _ = third.terminate() }
        let (back, again) = try await device("bob", on: third)
        #expect(again.activeCalls.map(\.sessionId) == [call.sessionId], "the ring bob heard survived the kill")
        let accepted = try await back.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        let logged = try await Self.everyCall(port: third.port, token: aliceToken)
        #expect(logged.map(\.sessionId) == [call.sessionId])
    }

    /// Expects each terminal status a client saw (`seen`, by session) in the log of the gateway
    /// on `port`, and each call there once, as the callers `c0`... of `pairs` read it.
    static func expectLoggedOnce(
        _ seen: [String: CallStatus], pairs: Int, port: Int, tokens: TokenService,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var logged: [String: [CallStatus]] = [:]
        for index in 0..<pairs {
            let token = try await tokens.mint(user: User(uid: "c\(index)", name: "C\(index)"), ttl: 600).token
            for log in try await everyCall(port: port, token: token) {
                logged[log.sessionId, default: []].append(log.callStatus)
            }
        }
        for (sessionId, status) in seen {
            #expect(
                logged[sessionId] == [status], "\(sessionId): a client saw \(status), the log has \(logged[sessionId] ?? [])",
                sourceLocation: sourceLocation)
        }
        #expect(logged.values.allSatisfy { $0.count == 1 }, "a call is one row", sourceLocation: sourceLocation)
    }

    /// `count` connected pairs: caller `c<i>` and callee `r<i>`.
    static func connectPairs(
        _ count: Int, port: Int, tokens: TokenService, loop: ClientLoop
    ) async throws -> [(CallGateClient, CallGateClient)] {
        var pairs: [(CallGateClient, CallGateClient)] = []
        for index in 0..<count {
            let caller = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: loop)
            _ = try await caller.connect(token: try await tokens.mint(user: User(uid: "c\(index)", name: "C\(index)"), ttl: 600).token)
            let callee = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: loop)
            _ = try await callee.connect(token: try await tokens.mint(user: User(uid: "r\(index)", name: "R\(index)"), ttl: 600).token)
            pairs.append((caller, callee))
        }
        return pairs
    }

    /// Rings `callee` again and again, ending each call a different way, noting every terminal
    /// status either side receives, until an op fails (the gateway is gone) or `stopped()` says
    /// so between two calls. Returns how many calls it started and the failure, if one ended it.
    static func call(
        _ caller: CallGateClient, _ calleeDevice: CallGateClient, callee: String, witness: TerminalStatusWitness,
        until stopped: @Sendable () -> Bool = { false }, pushTimeout: Duration = .seconds(5)
    ) async -> (started: Int, failure: (any Error)?) {
        var started = 0
        do {
            while !stopped() {
                let call: Call
                do {
                    call = try await caller.initiateCall(to: callee)
                } catch let refusal as ErrorBody where refusal.code == .storeUnavailable {
                    // While the store refuses writes no call may start, and the caller is told to
                    // try again shortly, as an app would.
                    try await Task.sleep(for: .milliseconds(200))
                    continue
                }
                started += 1
                try await nextPush(calleeDevice, witness, within: pushTimeout)
                switch started % 4 {
                case 0:
                    witness.saw(try await calleeDevice.acceptCall(call.sessionId))
                    try await nextPush(caller, witness, within: pushTimeout)
                    witness.saw(try await caller.endCall(call.sessionId))
                case 1:
                    witness.saw(try await calleeDevice.rejectCall(call.sessionId, status: .rejected))
                case 2:
                    witness.saw(try await caller.rejectCall(call.sessionId, status: .cancelled))
                default:
                    witness.saw(try await calleeDevice.rejectCall(call.sessionId, status: .busy))
                }
                // The other side hears how it ended: the caller of a decline, the callee of the rest.
                try await nextPush(started % 2 == 1 ? caller : calleeDevice, witness, within: pushTimeout)
            }
            return (started, nil)
        } catch {
            return (started, error)
        }
    }

    /// Waits for the next push on `device` and notes it; throws once the socket is gone.
    static func nextPush(
        _ device: CallGateClient, _ witness: TerminalStatusWitness, within timeout: Duration = .seconds(5)
    ) async throws {
        guard case .push(let push)? = await device.nextEvent(timeout: timeout) else {
            throw CallGateClientError.closed(code: device.closeCode)
        }
        witness.saw(push)
    }

    /// Every call in the log of the token's user, following the cursors.
    static func everyCall(port: Int, token: String) async throws -> [CallLog] {
        var logs: [CallLog] = []
        var cursor: String?
        repeat {
            var url = "http://127.0.0.1:\(port)/v3.0/calls?perPage=100"
            if let cursor { url += "&cursor=\(cursor)" }
            var request = URLRequest(url: URL(string: url)!)
            request.setValue(token, forHTTPHeaderField: "authToken")
            let (data, _) = try await URLSession.shared.data(for: request)
            let page = try JSONDecoder().decode(CallLogListBody.self, from: data)
            logs += page.data
            cursor = page.meta.cursor.next
        } while cursor != nil
        return logs
    }
}
