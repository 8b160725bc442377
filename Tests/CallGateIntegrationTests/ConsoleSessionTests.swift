import CallGateClient
import CallGateKit
import CallGateConsole
import CallGateProtocol
import Testing

/// The logic of `callgate listen` and `callgate call` in-process, over a real gateway.
@Suite("listen and call against a real gateway")
struct ConsoleSessionTests {
    private let endpoint = "ws://127.0.0.1/ws"

    @Test func autoRejectDeclinesAndTheCallerHearsIt() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let bobLines = PrintedLines()
        let (bob, bobEvents) = try await gateway.kitDevice("bob")
        let listener = Listener(client: bob, events: bobEvents, endpoint: endpoint, policy: .reject, output: bobLines.output)
        let listening = Task { await listener.run() }
        let aliceLines = PrintedLines()
        let (alice, aliceEvents) = try await gateway.kitDevice("alice")
        let caller = Caller(client: alice, events: aliceEvents, endpoint: endpoint, output: aliceLines.output)
        _ = try await caller.ring("bob", receiverType: .user, callType: .audio)
        #expect(await caller.follow() == .endedByPeer)
        #expect(aliceLines.all.contains("Bob (bob) declined"))
        #expect(await bobLines.waitFor("you declined the call from Alice (alice) (rejected)"))
        await listener.stop()
        await listening.value
    }

    @Test func aKeyAcceptsAndTheCallerHangsUp() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let bobLines = PrintedLines()
        let (bob, bobEvents) = try await gateway.kitDevice("bob")
        let listener = Listener(client: bob, events: bobEvents, endpoint: endpoint, policy: nil, output: bobLines.output)
        let listening = Task { await listener.run() }
        let aliceLines = PrintedLines()
        let (alice, aliceEvents) = try await gateway.kitDevice("alice")
        let caller = Caller(client: alice, events: aliceEvents, endpoint: endpoint, output: aliceLines.output)
        _ = try await caller.ring("bob", receiverType: .user, callType: .video)
        let following = Task { await caller.follow() }
        #expect(await bobLines.waitFor(ListenKey.help))
        await listener.press(.answer(.accept))
        #expect(await aliceLines.waitFor("in the call"))
        await caller.hangUp()
        #expect(await following.value == .hungUp)
        #expect(await bobLines.waitFor("Alice (alice) hung up; the call is over"))
        await listener.press(.hangUp)
        #expect(bobLines.all.last == "no call to hang up")
        await listener.press(.quit)
        await listening.value
    }

    @Test func listenReconnectsAfterADropAndAnswersTheRingItMissed() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let bobLines = PrintedLines()
        let relay = try await TCPRelay(to: gateway.port)
        defer { relay.stop() }
        let (bob, bobEvents) = try await gateway.kitDevice("bob", url: relay.url, firstRetryDelay: .milliseconds(500))
        let listener = Listener(client: bob, events: bobEvents, endpoint: endpoint, policy: .reject, output: bobLines.output)
        let listening = Task { await listener.run() }
        relay.cutAll()
        #expect(await bobLines.waitFor("the connection to the gateway was lost; reconnecting"))
        let alice = try await gateway.device("alice")
        let call = try await alice.initiateCall(to: "bob")
        #expect(await bobLines.waitFor("reconnected; caught up 1 missed event"))
        #expect(await bobLines.waitFor("you declined the call from Alice (alice) (rejected)"))
        // listen confirmed the ring before declining it: the caller heard where it rang first.
        var heard = try await alice.expectPush()
        while case .outgoingCallRinging = heard {
            heard = try await alice.expectPush()
        }
        guard case .outgoingCallRejected(let rejected, let by) = heard else {
            Issue.record("the caller should hear the decline, heard \(heard)")
            return
        }
        #expect(rejected.sessionId == call.sessionId)
        #expect(by?.uid == "bob")
        await listener.stop()
        await listening.value
    }

    @Test func callingAnUnknownGroupIsExplained() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (alice, aliceEvents) = try await gateway.kitDevice("alice")
        let caller = Caller(client: alice, events: aliceEvents, endpoint: endpoint, output: { _ in })
        do {
            _ = try await caller.ring("nope", receiverType: .group, callType: .audio)
            Issue.record("the call should have been refused")
        } catch {
            #expect(GatewayProblem.explain(error, endpoint: endpoint, receiver: "nope").contains("no group 'nope'"))
        }
    }
}
