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

/// Cluster mode: calls a survivor took over are let go without a word, and those of a dead
/// node are adopted as a restart resumes them.
@Suite struct TakeoverCoreTests {
    @Test func relinquishedCallsAreForgottenSilentlyAndFreeTheirUsers() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        f.connect("carol")
        let ringing = try #require(f.call("bob", from: a).call)
        let other = try #require(f.call("carol", from: b).call)
        let outcome = f.core.relinquish([ringing.sessionId])
        #expect(outcome.deliveries.isEmpty && outcome.logChanges.isEmpty)
        #expect(outcome.engagements == ["alice"])
        #expect(f.core.liveCallIDs.keys.sorted() == [other.sessionId])
        #expect(f.core.engagement(of: "alice") == nil)
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == [other.sessionId])
        #expect(f.accept(ringing.sessionId, from: b).errorCode == .callNotFound)
        #expect(f.call("carol", from: a).call != nil, "alice may call again")
    }

    @Test func anAdoptedRingGoesOnUntilItsAbsentCallersGraceEnds() throws {
        let f = Fixture()
        let b = f.connect("bob")
        let record = TakeoverCoreTests.ringingRecord(from: "alice", to: "bob", deadlineIn: 20_000, at: f.nowMillis)
        let outcome = f.core.adopt(openCalls: [record])
        #expect(outcome.deliveries.isEmpty)
        #expect(outcome.engagements == ["alice"])
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == ["s1"])
        // Alice has no device here: her caller grace (10 s) runs, and cancels the call.
        f.advance(seconds: 10)
        let sent = f.fireDueTimers()
        #expect(sent.map(\.push.event) == [.onIncomingCallCanceled])
        #expect(sent.first?.connections == [b])
    }

    @Test func aUserWithADeviceHereHasNoGracePeriodInAnAdoptedCall() throws {
        let f = Fixture()
        f.connect("alice")
        let b = f.connect("bob")
        let record = TakeoverCoreTests.ringingRecord(from: "alice", to: "bob", deadlineIn: 20_000, at: f.nowMillis)
        _ = f.core.adopt(openCalls: [record])
        f.advance(seconds: 10)
        #expect(f.fireDueTimers().isEmpty, "alice is present: her call still rings")
        #expect(f.accept("s1", from: b).call?.callStatus == .ongoing)
    }

    static func ringingRecord(from caller: String, to callee: String, deadlineIn millis: Int64, at now: Int64) -> CallLogRecord {
        CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: Fixture.user(caller), receiver: .user(Fixture.user(callee)), initiatedAt: now / 1000,
            startedAt: nil, endedAt: nil, ringDeadline: now + millis,
            participants: [
                CallLogParticipantRecord(uid: caller, name: Fixture.user(caller).name, avatar: nil, state: .joined),
                CallLogParticipantRecord(uid: callee, name: Fixture.user(callee).name, avatar: nil, state: .ringing),
            ],
            recordings: [], metadata: nil)
    }
}
