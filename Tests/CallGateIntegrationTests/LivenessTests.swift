import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Dead peers are found by the gateway's own pings, and their calls follow the disconnect rules.
@Suite("Liveness: silent sockets are dropped")
struct LivenessTests {
    /// Bob's hand-made socket takes the call, then never answers a ping: he is dropped before
    /// the liveness interval has passed, without a close frame, and once the participant grace
    /// period (1 s in tests) is over Alice hears that the call ended with `disconnected`.
    @Test func aPeerThatStopsAnsweringIsDroppedAndItsCallEnds() async throws {
        let gateway = try await TestGateway { $0.livenessInterval = .seconds(1) }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await RawWebSocket.open(port: gateway.port)
        #expect(try await bob.connect(token: try await gateway.token("bob")).contains(#""result""#))
        let call = try await alice.initiateCall(to: "bob")
        #expect(try await bob.nextText(within: .seconds(5)).contains("onIncomingCallReceived"))
        try await bob.send(#"{"id":"a1","op":"acceptCall","data":{"sessionId":"\#(call.sessionId)"}}"#)
        #expect(try await bob.nextText(within: .seconds(5)).contains(#""result""#))
        guard case .outgoingCallAccepted = try await alice.expectPush() else {
            Issue.record("alice should hear the accept")
            return
        }

        let silentSince = ContinuousClock.now
        let (ending, pings) = await bob.readSkippingPings(within: .seconds(3))
        #expect(pings > 0, "a quiet socket is pinged first")
        guard case .endOfStream = ending else {
            Issue.record("expected the gateway to drop the socket without a close frame, got \(ending)")
            return
        }
        #expect(ContinuousClock.now - silentSince < .milliseconds(1500), "dropped within the interval (plus slack)")

        guard case .callEndedMessageReceived(let ended, _, let reason) = try await alice.expectPush(within: .seconds(5)) else {
            Issue.record("alice should hear that the call ended")
            return
        }
        #expect(ended.sessionId == call.sessionId)
        #expect(reason == .disconnected)
    }

    @Test func aQuietClientThatAnswersPingsStaysConnected() async throws {
        let gateway = try await TestGateway { $0.livenessInterval = .seconds(1) }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        await alice.expectSilence(for: .milliseconds(2500))
        #expect(try await alice.ping().serverTime > 0)
    }
}
