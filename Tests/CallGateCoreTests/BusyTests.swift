import CallGateCore
import CallGateProtocol
import Testing

/// alice and bob are in an answered call; carol (2 devices) then calls bob (2 devices).
@Suite struct BusyTests {
    let bob = Fixture.user("bob")

    private func setUp(_ configuration: CoreConfiguration = .init()) throws
        -> (Fixture, carol: [ConnectionID], bob: [ConnectionID], ongoing: Call)
    {
        let f = Fixture(configuration)
        let a = f.connect("alice")
        let b = f.devices("bob", 2)
        let c = f.devices("carol", 2)
        let ongoing = try #require(f.call("bob", from: a).call)
        _ = f.accept(ongoing.sessionId, from: b[0])
        return (f, c, b, ongoing)
    }

    @Test func aCalleeInAnAnsweredCallIsBusyAtOnce() throws {
        let (f, c, _, _) = try setUp()
        f.advance(seconds: 2)
        let outcome = f.call("bob", from: c[0], callType: .video)
        let call = try #require(outcome.call)
        #expect(call == Call(
            sessionId: "s2", callType: .video, receiverType: .user, callStatus: .busy,
            initiator: Fixture.user("carol"), receiver: .user(bob),
            initiatedAt: f.nowSeconds, endedAt: f.nowSeconds, callUUID: CallUUID.of(sessionId: "s2"),
            ringExpiresAt: f.nowSeconds + 45))
        #expect(outcome.deliveries == [delivery(.outgoingCallRejected(call: call, by: bob), c)])
        #expect(f.core.activeCallCount == 1)
        #expect(f.accept("s2", from: f.core.connections(of: "bob")[1]).errorCode == .callRejected)
        #expect(f.call("dave", from: c[1]).call?.callStatus == .initiated)
    }

    @Test func withoutAutoBusyTheCalleeRings() throws {
        let (f, c, b, _) = try setUp(CoreConfiguration(autoBusy: false))
        let outcome = f.call("bob", from: c[0])
        let call = try #require(outcome.call)
        #expect(call.callStatus == .initiated)
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), b)])
    }

    @Test func aCalleeWhoIsOnlyRingingSomeoneIsNotBusy() throws {
        let f = Fixture()
        let b = f.connect("bob")
        let c = f.connect("carol")
        _ = try #require(f.call("dave", from: b).call)
        let outcome = f.call("bob", from: c)
        let call = try #require(outcome.call)
        #expect(call.callStatus == .initiated)
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), [b])])
    }

    @Test func aBusyCalleeWhoseDevicesAreGoneIsStillNamed() throws {
        let (f, c, b, _) = try setUp()
        for connection in b {
            _ = f.disconnect(connection)
        }
        let call = try #require(f.call("bob", from: c[0]).call)
        #expect(call.callStatus == .busy)
        #expect(call.receiver == .user(bob))
    }
}
