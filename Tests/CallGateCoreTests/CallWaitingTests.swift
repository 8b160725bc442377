@testable import CallGateCore
import CallGateProtocol
import Testing

/// Call waiting: bob is in an answered call with alice (both joined its session) when carol rings
/// him; her app allows call waiting, so bob is rung instead of found busy, and his accept puts
/// alice's call on hold for him. dave is a bystander.
@Suite struct CallWaitingTests {
    let f = Fixture(CoreConfiguration(autoBusy: true))
    let a: ConnectionID
    let b: [ConnectionID]
    let c: ConnectionID
    let d: ConnectionID
    let first: Call

    init() throws {
        a = f.connect("alice")
        b = f.devices("bob", 2)
        c = f.connect("carol")
        d = f.connect("dave")
        first = try #require(f.call("bob", from: a).call)
        _ = f.accept(first.sessionId, from: b[0])
        _ = f.join(first.sessionId, from: a)
        _ = f.join(first.sessionId, from: b[0])
    }

    private func ringWaiting(_ callee: String = "bob", from connection: ConnectionID) -> Observed<Call> {
        f.initiateCall(
            InitiateCallParams(receiverId: callee, receiverType: .user, callType: .audio, callWaiting: true), from: connection)
    }

    @Test func withoutCallWaitingAUserInACallIsBusy() throws {
        let busy = try #require(f.call("bob", from: c).call)
        #expect(busy.callStatus == .busy && busy.callWaiting == nil)
    }

    @Test func aWaitingCallRingsAndItsAcceptHoldsTheFirstCall() throws {
        let second = try #require(ringWaiting(from: c).call)
        #expect(second.callStatus == .initiated && second.callWaiting == true)
        let accepted = f.accept(second.sessionId, from: b[1])
        #expect(accepted.call?.callStatus == .ongoing)
        let bob = Fixture.user("bob")
        #expect(accepted.deliveries.first == delivery(.callHeld(sessionId: first.sessionId, user: bob), [a, b[0], b[1]]))
        #expect(f.core.engagingCall(of: "bob")?.sessionId == second.sessionId)
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == [first.sessionId, second.sessionId])
        #expect(f.webhookEvents.contains { $0.type == .callHeld })

        // While the second call engages him, bob cannot take the first back.
        #expect(f.hold(first.sessionId, false, from: b[0]).errorCode == .callInProgress)
        _ = f.end(second.sessionId, from: b[1])
        #expect(f.core.engagingCall(of: "bob") == nil, "the held call waits to be taken back")
        let resumed = f.hold(first.sessionId, false, from: b[0])
        #expect(resumed.session?.participants.first { $0.uid == "bob" }?.onHold == nil)
        #expect(f.core.engagingCall(of: "bob")?.sessionId == first.sessionId)
    }

    @Test func aSecondWaitingCallHoldsTheSecondCallToo() throws {
        let second = try #require(ringWaiting(from: c).call)
        _ = f.accept(second.sessionId, from: b[1])
        _ = f.join(second.sessionId, from: b[1])
        let third = try #require(ringWaiting(from: d).call)
        #expect(f.accept(third.sessionId, from: b[1]).call?.callStatus == .ongoing)
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == [first.sessionId, second.sessionId, third.sessionId])
        _ = f.end(third.sessionId, from: d)
        #expect(f.hold(second.sessionId, false, from: b[1]).session != nil, "either held call may be taken back")
        #expect(f.hold(first.sessionId, false, from: b[0]).errorCode == .callInProgress)
    }

    @Test func holdingForWaitingCallsCountsAgainstTheSessionEvents() throws {
        let limited = Fixture(CoreConfiguration(autoBusy: true, maxSessionEventsPerWindow: 1))
        let a = limited.connect("alice"), b = limited.connect("bob"), c = limited.connect("carol")
        let first = try #require(limited.call("bob", from: a).call)
        _ = limited.accept(first.sessionId, from: b)
        _ = limited.join(first.sessionId, from: b)
        _ = limited.hold(first.sessionId, from: b)
        _ = limited.hold(first.sessionId, false, from: b)
        let waiting = try #require(limited.initiateCall(
            InitiateCallParams(receiverId: "bob", receiverType: .user, callType: .audio, callWaiting: true), from: c).call)
        #expect(limited.accept(waiting.sessionId, from: b).errorCode == .rateLimited)
        #expect(limited.core.engagingCall(of: "bob")?.sessionId == first.sessionId, "nothing changed")
    }

    @Test func aUserGoneFromEveryDeviceLeavesTheHeldCallAfterTheGracePeriod() throws {
        let second = try #require(ringWaiting(from: c).call)
        _ = f.accept(second.sessionId, from: b[1])
        _ = f.disconnect(b[0])
        _ = f.disconnect(b[1])
        f.advance(seconds: 600)
        let ended = f.fireDueTimers()
        #expect(ended.contains { if case .callEndedMessageReceived(let call, _, .disconnected) = $0.push { call.sessionId == first.sessionId } else { false } })
        #expect(f.core.activeCalls(of: "bob").isEmpty)
    }

    @Test func aCallWhoseSessionWasNotJoinedCannotBeHeldAway() throws {
        _ = f.leave(first.sessionId, from: b[0])
        let other = try #require(f.call("dave", from: b[0]).call)
        _ = f.accept(other.sessionId, from: d)
        let waiting = try #require(ringWaiting(from: c).call)
        #expect(f.accept(waiting.sessionId, from: b[1]).errorCode == .callInProgress)
        #expect(f.core.engagingCall(of: "bob")?.sessionId == other.sessionId)
    }

    @Test func theHeldCallEndingOrItsLeaverForgetTheHold() throws {
        let second = try #require(ringWaiting(from: c).call)
        _ = f.accept(second.sessionId, from: b[1])
        _ = f.end(first.sessionId, from: a)
        #expect(f.core.activeCalls(of: "bob").map(\.sessionId) == [second.sessionId])
        _ = f.end(second.sessionId, from: c)
        #expect(f.core.activeCalls(of: "bob").isEmpty && f.core.engagingCall(of: "bob") == nil)
    }

    @Test func aRestoredCallHeldOnHoldWaitsToBeTakenBack() throws {
        let second = try #require(ringWaiting(from: c).call)
        _ = f.accept(second.sessionId, from: b[1])
        let records = [try #require(f.loggedChanges.values.first { $0.sessionId == first.sessionId }),
                       try #require(f.loggedChanges.values.first { $0.sessionId == second.sessionId })]
        #expect(records[1].callWaiting == true)
        #expect(records[0].participants.first { $0.uid == "bob" }?.heldAway == true)
        let restarted = Fixture(CoreConfiguration(autoBusy: true))
        restarted.restore(openCalls: records.sorted { $0.id < $1.id }, lastCallID: 10)
        #expect(restarted.core.engagingCall(of: "bob")?.sessionId == second.sessionId)
        #expect(restarted.core.activeCalls(of: "bob").map(\.sessionId) == [first.sessionId, second.sessionId])
        #expect(restarted.core.holdsAway("bob", first.sessionId))
    }

    @Test func aPlainHoldStillEngagesAfterARestore() throws {
        _ = f.hold(first.sessionId, from: b[0])
        let record = try #require(f.loggedChanges.values.first { $0.sessionId == first.sessionId })
        #expect(record.participants.first { $0.uid == "bob" }?.heldAway == nil)
        let restarted = Fixture(CoreConfiguration(autoBusy: true))
        restarted.restore(openCalls: [record], lastCallID: 10)
        #expect(restarted.core.engagingCall(of: "bob")?.sessionId == first.sessionId)
    }
}
