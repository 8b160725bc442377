@testable import CallGateCore
import CallGateProtocol
import Testing

/// Cluster mode: devices of other nodes that the owner of a call runs ops for.
@Suite struct RemoteDeviceTests {
    let bob = Fixture.user("bob")

    @Test func aRemoteDeviceActsOnTheCallUntilItDeparts() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let ringing = try #require(f.call("bob", from: a).call)
        let remote = ConnectionID(5 << 44 | 1)
        f.core.admitRemote(remote, as: bob)
        #expect(f.core.user(of: remote) == bob)
        let accepted = try #require(f.accept(ringing.sessionId, from: remote).call)
        #expect(accepted.callStatus == .ongoing)
        #expect(accepted.receiver == .user(bob))

        // Once the remote device departs, bob has no device left here: his grace period runs.
        _ = f.disconnect(remote)
        #expect(f.core.user(of: remote) == nil)
        #expect(f.core.nextDeadline == Fixture.start + 30_000)
    }

    @Test func admittingARegisteredDeviceAgainChangesNothingAndEndsAGracePeriod() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.accept(ringing.sessionId, from: b)
        _ = f.disconnect(b)
        #expect(f.core.nextDeadline == Fixture.start + 30_000)
        let remote = ConnectionID(9 << 44)
        f.core.admitRemote(remote, as: bob)
        f.core.admitRemote(remote, as: Fixture.user("mallory"))
        #expect(f.core.user(of: remote) == bob)
        #expect(f.core.connections(of: "bob") == [remote])
        #expect(f.core.nextDeadline == nil, "bob's grace period stopped")
    }

    @Test func theCoreKnowsTheCallsAndSessionsItRunsOrRemembers() throws {
        let f = Fixture()
        let a = f.connect("alice")
        f.connect("bob")
        #expect(!f.core.knows("v1.unknown"))
        let ringing = try #require(f.call("bob", from: a).call)
        #expect(f.core.knows(ringing.sessionId))
        _ = f.reject(ringing.sessionId, .cancelled, from: a)
        #expect(f.core.knows(ringing.sessionId), "a finished call is remembered for late ops")
        _ = f.join("room-1", from: a)
        #expect(f.core.knows("room-1"))
    }
}
