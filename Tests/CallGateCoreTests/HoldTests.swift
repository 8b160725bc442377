@testable import CallGateCore
import CallGateProtocol
import Testing

/// holdCall and resumeCall. alice (2 devices, joined from the first) calls bob; both joined the
/// call's session.
@Suite struct HoldTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: ConnectionID
    let alice = Fixture.user("alice")
    let sessionId: String

    init() throws {
        a = f.devices("alice", 2)
        b = f.connect("bob")
        let call = try #require(f.call("bob", from: a[0]).call)
        sessionId = call.sessionId
        _ = f.accept(sessionId, from: b)
        _ = f.join(sessionId, from: a[0])
        _ = f.join(sessionId, from: b)
        _ = f.changes()
    }

    @Test func aHoldIsToldShownAndItsTimeLogged() throws {
        let held = f.hold(sessionId, from: a[0])
        #expect(held.session?.participants.map(\.onHold) == [true, nil])
        #expect(held.deliveries == [delivery(.callHeld(sessionId: sessionId, user: alice), [a[1], b])])
        #expect(f.webhookEvents.last?.type == .callHeld)
        #expect(f.hold(sessionId, from: a[0]).reply == .failure(.badRequest("you have this call on hold already")))
        let logged = try #require(f.changes().last?.participants.first { $0.uid == "alice" })
        #expect(logged.holdStartedAt == Fixture.t0 && logged.heldSeconds == 0)

        f.advance(seconds: 30)
        let resumed = f.hold(sessionId, false, from: a[0])
        #expect(resumed.session?.participants.map(\.onHold) == [nil, nil])
        #expect(resumed.deliveries == [delivery(.callResumed(sessionId: sessionId, user: alice), [a[1], b])])
        #expect(f.hold(sessionId, false, from: a[0]).reply == .failure(.badRequest("you do not have this call on hold")))
        let record = try #require(f.changes().last)
        let after = try #require(record.participants.first { $0.uid == "alice" })
        #expect(after.heldSeconds == 30 && after.holdStartedAt == nil)
        #expect(after.participant(at: Fixture.t0 + 100).heldDuration == 30)
        let bob = try #require(record.participants.first { $0.uid == "bob" })
        #expect(bob.participant(at: Fixture.t0 + 100).heldDuration == nil)
    }

    @Test func leavingTheSessionEndsAHoldAndTheLogAndTimelineKeepIt() throws {
        _ = f.hold(sessionId, from: b)
        f.advance(seconds: 12)
        _ = f.end(sessionId, from: b)
        let record = try #require(f.changes().last)
        let bob = try #require(record.participants.first { $0.uid == "bob" })
        #expect(bob.heldSeconds == 12 && bob.holdStartedAt == nil)
        let steps = try #require(f.loggedSteps.values.first).steps.map(\.step)
        #expect(steps.contains(.held))
        #expect(f.hold(sessionId, false, from: b).errorCode == .callEnded)
    }

    /// Another gateway takes the call over in the middle of a hold: the time held so far stays
    /// in the log, and the hold ends there (the participants join the session again).
    @Test func aCallTakenOverKeepsItsTimeOnHold() throws {
        _ = f.hold(sessionId, from: b)
        f.advance(seconds: 20)
        let row = try #require(f.changes().last)
        #expect(row.participants.first { $0.uid == "bob" }?.holdStartedAt == Fixture.t0)
        let next = Fixture()
        next.advance(seconds: 20)
        next.restore(openCalls: [row], lastCallID: row.id)
        let bob = next.connect("bob")
        _ = next.join(sessionId, from: bob)
        next.advance(seconds: 5)
        _ = next.hold(sessionId, from: bob)
        next.advance(seconds: 4)
        let logged = try #require(next.changes().last?.participants.first { $0.uid == "bob" })
        #expect(logged.heldSeconds == 20 && logged.holdStartedAt == Fixture.t0 + 25)
        #expect(logged.participant(at: Fixture.t0 + 29).heldDuration == 24)
    }

    @Test func holdsCountAgainstTheSessionEventBudgetAndAResumeIsNeverRefused() {
        let small = Fixture(CoreConfiguration(maxSessionEventsPerWindow: 3))
        let alice = small.connect("alice")
        _ = small.join("room:1", from: alice)
        #expect(small.sendSessionEvent("room:1", type: "t", from: alice).errorCode == nil)
        #expect(small.hold("room:1", from: alice).errorCode == nil)
        #expect(small.hold("room:1", false, from: alice).errorCode == nil)
        #expect(small.hold("room:1", from: alice).errorCode == nil)
        #expect(small.sendSessionEvent("room:1", type: "t", from: alice).reply == .failure(.sessionEventsRateLimited(3)))
        #expect(small.hold("room:1", false, from: alice).errorCode == nil)
        #expect(small.hold("room:1", from: alice).reply == .failure(.sessionEventsRateLimited(3)))
        small.advance(seconds: 10)
        #expect(small.hold("room:1", from: alice).errorCode == nil)
    }

    @Test func onlyAJoinedDeviceHolds() {
        #expect(f.hold(sessionId, from: a[1]).reply == .failure(.notJoined))
        #expect(f.hold("v1.none", from: a[0]).errorCode == .callNotFound)
    }
}
