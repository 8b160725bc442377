import CallGateCore
import CallGateProtocol
import Testing

@Suite struct ConnectionTests {
    @Test func routingTablesFollowConnectAndDisconnect() {
        let f = Fixture()
        let a = f.devices("alice", 2)
        let b = f.connect("bob")
        #expect(f.core.connectionCount == 3)
        #expect(f.core.connections(of: "alice") == a)
        #expect(f.core.user(of: b) == Fixture.user("bob"))
        _ = f.disconnect(a[0])
        #expect(f.core.connections(of: "alice") == [a[1]])
        #expect(f.core.user(of: a[0]) == nil)
        #expect(f.disconnect(a[0]).isEmpty)
        #expect(f.core.connectionCount == 2)
        #expect(f.core.connections(of: "nobody").isEmpty)
    }

    @Test func connectingAgainReRegistersTheConnection() {
        let f = Fixture()
        let x = f.connect("alice")
        _ = f.connect(x, user: Fixture.user("bob"))
        #expect(f.core.connections(of: "alice").isEmpty)
        #expect(f.core.connections(of: "bob") == [x])
        #expect(f.core.connectionCount == 1)
    }

    @Test func activeCallsShowRingingAndTakingPartOldestFirst() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let d = f.connect("dave")
        let fromAlice = try #require(f.call("bob", from: a).call)
        f.advance(seconds: 1)
        let fromCarol = try #require(f.call("bob", from: c).call)
        f.advance(seconds: 1)
        let byBob = try #require(f.call("dave", from: b).call)

        #expect(f.connect(ConnectionID(100), user: Fixture.user("bob")) == [fromAlice, fromCarol, byBob])
        #expect(f.connect(ConnectionID(101), user: Fixture.user("alice")) == [fromAlice])
        _ = f.reject(fromCarol.sessionId, .rejected, from: b)
        _ = f.reject(byBob.sessionId, .cancelled, from: b)
        let ongoing = try #require(f.accept(fromAlice.sessionId, from: b).call)
        #expect(f.connect(ConnectionID(102), user: Fixture.user("bob")) == [ongoing])
        #expect(f.connect(ConnectionID(103), user: Fixture.user("carol")).isEmpty)
        #expect(f.connect(ConnectionID(104), user: Fixture.user("dave")).isEmpty)
        _ = d
    }

    @Test func aGroupCallStillRingingAMemberIsActiveForThem() throws {
        let f = Fixture()
        f.group("team", ["alice", "bob", "carol"])
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("team", from: a, type: .group).call)
        let ongoing = try #require(f.accept(ringing.sessionId, from: b).call)
        #expect(f.connect(ConnectionID(9), user: Fixture.user("carol")) == [ongoing])
    }

    @Test func aDeviceConnectedMidRingGetsTheLaterPushes() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b1 = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        let b2 = f.connect("bob")
        let outcome = f.accept(ringing.sessionId, from: b1)
        let call = try #require(outcome.call)
        #expect(outcome.deliveries == [
            delivery(.outgoingCallAccepted(call: call, by: Fixture.user("bob")), [a]),
            delivery(.incomingCallCanceled(call: call, reason: .answeredElsewhere), [b2]),
        ])
    }

    @Test func aDisconnectedDeviceGetsNothing() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.devices("bob", 3)
        _ = f.disconnect(b[1])
        let outcome = f.call("bob", from: a)
        let call = try #require(outcome.call)
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), [b[0], b[2]])])
        expectWellFormed(outcome.deliveries)
    }
}
