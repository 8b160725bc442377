import CallGateClient
import CallGateProtocol
import CallGateServer
import Testing

/// `ReconnectingClient` against a real gateway: it reconnects by itself after a drop, recovers
/// what it missed, keeps or rejoins its sessions, and stops on closes a reconnect cannot help.
@Suite("Reconnecting client over real sockets")
struct ReconnectingClientTests {
    /// The next event.
    func nextEvent(of client: ReconnectingClient) async throws -> ClientEvent {
        try #require(await client.nextEvent(timeout: .seconds(10)), "no event within 10 s")
    }

    @Test func aDropMidCallReconnectsRecoversTheMissedPushAndTheCallGoesOn() async throws {
        let gateway = try await TestGateway { $0.core.participantGracePeriod = .seconds(5) }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.reconnectingDevice("bob")
        let call = try await alice.initiateCall(to: "bob")
        #expect(try await nextEvent(of: bob).push == .incomingCallReceived(call: call))
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()

        bob.dropSocket()
        _ = try await alice.setMuted(call.sessionId, audio: true)
        guard case .reconnected(let result) = try await nextEvent(of: bob) else {
            Issue.record("expected the client to reconnect")
            return
        }
        #expect(result.recovery?.recovered == true)
        #expect(result.resumedSessions.map(\.sessionId) == [call.sessionId])
        #expect(try await nextEvent(of: bob).push?.event == .onUserMuted)
        _ = try await bob.setMuted(call.sessionId, video: true)
        #expect(try await alice.expectPush().event == .onUserMuted)
        await alice.expectSilence()
        _ = try await alice.endCall(call.sessionId)
        #expect(try await nextEvent(of: bob).push?.event == .onCallEndedMessageReceived)
    }

    @Test func aMeetSessionTheGatewayDidNotKeepIsNotStartedAgain() async throws {
        let gateway = try await TestGateway { $0.core.participantGracePeriod = .milliseconds(50) }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.reconnectingDevice("bob")
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: "room.7").callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: "room.7").callToken)
        #expect(try await alice.expectPush().event == .onUserJoined)
        #expect(try await alice.expectPush().event == .onUserListChanged)

        bob.dropSocket()
        #expect(try await alice.expectPush().event == .onUserLeft)
        #expect(try await alice.expectPush().event == .onUserListChanged)
        guard case .reconnected(let result) = try await nextEvent(of: bob) else {
            Issue.record("expected the client to reconnect")
            return
        }
        #expect(result.resumedSessions.isEmpty)
        await alice.expectSilence()
        await expectError(.notParticipant) { try await bob.setMuted("room.7", audio: true) }
    }

    @Test func aReplacedOrClosedClientStopsWithTheCloseCode() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let phone = try await gateway.reconnectingDevice("bob")
        let point = try #require(phone.recoveryPoint)
        let other = try await gateway.socket()
        _ = try await other.connect(token: try await gateway.token("bob"), recover: point)
        guard case .closed(let code) = try await nextEvent(of: phone) else {
            Issue.record("expected the client to stop")
            return
        }
        #expect(code == CloseCode.replaced)
        #expect(await phone.nextEvent(timeout: .milliseconds(500)) == nil)

        let laptop = try await gateway.reconnectingDevice("bob")
        laptop.startClosing()
        guard case .closed = try await nextEvent(of: laptop) else {
            Issue.record("expected the client to stop")
            return
        }
    }
}

extension ClientEvent {
    /// The push, when this event is one.
    var push: Push? {
        if case .push(let push) = self { return push }
        return nil
    }
}
