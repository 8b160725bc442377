import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// CallGateKit, the SDK apps ship, against a real gateway: the typed ops, the events, and what
/// it does when the network, the token or the gateway misbehaves.
@Suite("CallGateKit against a real gateway")
struct CallGateKitFlowTests {
    @Test func aCallIsRungConfirmedAnsweredJoinedAndEnded() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (alice, aliceStream) = try await gateway.kitDevice("alice")
        let (bob, bobStream) = try await gateway.kitDevice("bob")
        let aliceEvents = KitEvents(aliceStream)
        let bobEvents = KitEvents(bobStream)

        let call = try await alice.initiateCall(to: "bob", callType: .video)
        guard case .incomingCallReceived(let rung, _)? = await bobEvents.push() else {
            Issue.record("bob's device was not rung")
            return
        }
        #expect(rung.sessionId == call.sessionId)
        // The SDK confirmed the ring it handed to bob's app: alice hears one device ringing.
        let ringing = await aliceEvents.push { push in
            if case .outgoingCallRinging(_, let progress) = push { return progress.devices == 1 }
            return false
        }
        #expect(ringing != nil)

        let accepted = try await bob.acceptCall(call.sessionId)
        #expect(accepted.callStatus == .ongoing)
        #expect(await aliceEvents.push { if case .outgoingCallAccepted = $0 { true } else { false } } != nil)
        let aliceSession = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        let bobSession = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)
        #expect(aliceSession.sessionId == call.sessionId)
        #expect(bobSession.participants.count == 2)
        #expect(await aliceEvents.push { if case .userJoined(_, let user) = $0 { user.uid == "bob" } else { false } } != nil)

        _ = try await alice.endCall(call.sessionId)
        let ended = await bobEvents.push { if case .callEndedMessageReceived = $0 { true } else { false } }
        #expect(ended != nil)
        do {
            _ = try await bob.acceptCall(call.sessionId)
            Issue.record("accepting an ended call should fail")
        } catch let refused as ErrorBody {
            #expect(refused.code != .authError)
        }
        await alice.close()
        await bob.close()
        #expect(await aliceEvents.next { if case .closed(_, _, let again) = $0 { !again } else { false } } != nil)
    }

    @Test @MainActor func aDelegateHearsEveryEventOnTheMainActor() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (alice, _) = try await gateway.kitDevice("alice")
        let configuration = CallGateConfiguration(url: gateway.url, token: try await gateway.token("bob"))
        let bob = CallGateConnection(configuration: configuration)
        let delegate = RecordingDelegate()
        await bob.setDelegate(delegate)
        try await bob.connect()
        let call = try await alice.initiateCall(to: "bob")
        _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
        let deadline = ContinuousClock.now + .seconds(5)
        while delegate.names.count < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(delegate.names == ["open", "onIncomingCallReceived", "onIncomingCallCanceled", "onMissedCallsChanged"])
        await bob.close()
        await alice.close()
    }

    @Test func aConnectionLostMidCallRecoversTheMissedPushesOnceAndInOrder() async throws {
        let gateway = try await TestGateway { $0.core.participantGracePeriod = .seconds(20) }
        defer { gateway.shutdown() }
        let relay = try await TCPRelay(to: gateway.port)
        defer { relay.stop() }
        let (alice, _) = try await gateway.kitDevice("alice")
        let (bob, bobStream) = try await gateway.kitDevice("bob", url: relay.url, firstRetryDelay: .milliseconds(500))
        let bobEvents = KitEvents(bobStream)
        let call = try await alice.initiateCall(to: "bob")
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)

        relay.cutAll()
        let lost = await bobEvents.next { if case .closed(nil, _, true) = $0 { true } else { false } }
        #expect(lost != nil, "bob's device should see its socket end without a close frame, and reconnect")
        _ = try await alice.setMuted(call.sessionId, audio: true)
        _ = try await alice.startRecording(call.sessionId)

        guard case .recovered(let report)? = await bobEvents.next(where: { if case .recovered = $0 { true } else { false } }) else {
            Issue.record("bob's device did not recover")
            return
        }
        #expect(report.recovered)
        #expect(report.missed >= 2)
        #expect(report.resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(report.lostSessions.isEmpty)
        let muted = await bobEvents.push { if case .userMuted = $0 { true } else { false } }
        let recording = await bobEvents.push { if case .recordingToggled = $0 { true } else { false } }
        #expect(muted != nil && recording != nil)
        _ = try await alice.endCall(call.sessionId)
        #expect(await bobEvents.push { if case .callEndedMessageReceived = $0 { true } else { false } } != nil)
        #expect(await bobEvents.push(within: .milliseconds(300)) { if case .userMuted = $0 { true } else { false } } == nil)
        await alice.close()
        await bob.close()
    }

    @Test func aGatewayRestartBringsTheCallBackAndTheSessionIsJoinedAgain() async throws {
        let directory = try TemporaryDirectory()
        let first = try await TestGateway(directory: directory) { $0.core.participantGracePeriod = .seconds(30) }
        let port = first.port
        let (alice, _) = try await first.kitDevice("alice")
        let (bob, bobStream) = try await first.kitDevice("bob")
        let bobEvents = KitEvents(bobStream)
        let call = try await alice.initiateCall(to: "bob")
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)
        first.shutdown()
        #expect(await bobEvents.next { if case .closed(_, _, true) = $0 { true } else { false } } != nil)

        let second = try await TestGateway(directory: directory) {
            $0.port = port
            $0.core.participantGracePeriod = .seconds(30)
        }
        defer { second.shutdown() }
        guard case .recovered(let report)? = await bobEvents.next(within: .seconds(20), where: { if case .recovered = $0 { true } else { false } })
        else {
            Issue.record("bob's device did not come back to the restarted gateway")
            return
        }
        let back = report.resumedSessions.map(\.sessionId) + report.rejoinedSessions.map(\.sessionId)
        #expect(back == [call.sessionId], "the session should be resumed or joined again, got \(report)")
        #expect(await bob.isConnected)
        await alice.close()
        await bob.close()
    }

    @Test func aTokenIsRefreshedBeforeItExpires() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (bob, bobStream) = try await gateway.kitDevice("bob", ttl: 3)
        let bobEvents = KitEvents(bobStream)
        try await Task.sleep(for: .seconds(5))
        #expect(await bobEvents.next(within: .zero) { if case .closed = $0 { true } else { false } } == nil)
        _ = try await bob.ping()
        await bob.close()
    }

    @Test func aTokenThatExpiresWithNoWayToRefreshItEndsTheConnection() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (bob, bobStream) = try await gateway.kitDevice("bob", ttl: 2, refreshes: false)
        let bobEvents = KitEvents(bobStream)
        let closed = await bobEvents.next { if case .closed = $0 { true } else { false } }
        guard case .closed(let code, _, let willReconnect)? = closed else {
            Issue.record("the gateway should close the socket when the token expires")
            return
        }
        #expect(code == CloseCode.tokenExpired)
        #expect(!willReconnect)
        #expect(await bobEvents.next(within: .seconds(1)) { if case .reconnecting = $0 { true } else { false } } == nil)
        #expect(await !bob.isConnected)
        // The app signs in again: a new token, and the connection takes up where it stood.
        await bob.setToken(try await gateway.token("bob"))
        let again = try await bob.connect()
        #expect(again.recovery?.recovered == true)
        await bob.close()
    }
}

/// A delegate as a UIKit app writes one: it keeps the names of the events it is told.
@MainActor
final class RecordingDelegate: CallGateConnectionDelegate {
    private(set) var names: [String] = []

    func connection(_ connection: CallGateConnection, didReceive event: CallGateEvent) {
        MainActor.preconditionIsolated()
        switch event {
        case .open: names.append("open")
        case .push(let push): names.append(push.event.rawValue)
        default: break
        }
    }
}
