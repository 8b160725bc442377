@testable import CallGateCore
import CallGateProtocol
import Testing

@Suite struct TimerTests {
    @Test func nextDeadlineIsTheEarliestPendingTimer() throws {
        let f = Fixture()
        #expect(f.core.nextDeadline == nil)
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let d = f.connect("dave")
        let slow = try #require(f.call("bob", from: a, timeout: 60).call)
        #expect(f.core.nextDeadline == Fixture.start + 60_000)
        let fast = try #require(f.call("dave", from: c, timeout: 20).call)
        #expect(f.core.nextDeadline == Fixture.start + 20_000)
        _ = f.accept(fast.sessionId, from: d)
        #expect(f.core.nextDeadline == Fixture.start + 60_000)
        f.advance(seconds: 2)
        _ = f.reject(slow.sessionId, .rejected, from: b)
        #expect(f.core.nextDeadline == Fixture.start + 302_000)
    }

    @Test func aWallClockStepMovesNoTimer() throws {
        let f = Fixture()
        let a = f.connect("alice")
        _ = f.connect("bob")
        let call = try #require(f.call("bob", from: a, timeout: 30).call)
        f.clock.stepWall(millis: 3_600_000)
        #expect(f.fireDueTimers().isEmpty)
        f.clock.stepWall(millis: -7_200_000)
        f.advance(seconds: 29)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(seconds: 1)
        let fired = f.fireDueTimers()
        #expect(fired.map(\.push.sessionId).contains(call.sessionId))
        #expect(f.core.nextDeadline == Fixture.start + 30_000 + 300_000)
    }

    @Test func dueTimersFireInDeadlineOrder() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let c = f.connect("carol")
        let e = f.connect("erin")
        // The callees have no device: without webhooks nobody is woken, so no ring progress is due.
        f.core.reportsWebhookEvents = false
        let late = try #require(f.call("bob", from: a, timeout: 10).call)
        let early = try #require(f.call("dave", from: c, timeout: 5).call)
        let middle = try #require(f.call("frank", from: e, timeout: 7).call)
        f.advance(seconds: 20)
        let order = f.fireDueTimers().map(\.push.sessionId)
        #expect(order == [early.sessionId, middle.sessionId, late.sessionId])
    }

    @Test func queueOrdersByDeadlineThenSchedulingOrder() {
        var queue = TimerQueue<TimerEvent>()
        _ = queue.schedule(.forget(sessionId: "c"), at: 30)
        _ = queue.schedule(.forget(sessionId: "a1"), at: 10)
        _ = queue.schedule(.forget(sessionId: "a2"), at: 10)
        let cancelled = queue.schedule(.forget(sessionId: "b"), at: 20)
        queue.cancel(cancelled)
        queue.cancel(cancelled)
        #expect(queue.count == 3)
        #expect(queue.nextDeadline() == 10)
        #expect(queue.popDue(now: 9) == nil)
        #expect(queue.popDue(now: 25) == .forget(sessionId: "a1"))
        #expect(queue.popDue(now: 25) == .forget(sessionId: "a2"))
        #expect(queue.popDue(now: 25) == nil)
        #expect(queue.nextDeadline() == 30)
        #expect(queue.popDue(now: 30) == .forget(sessionId: "c"))
        #expect(queue.nextDeadline() == nil)
    }

    @Test func cancelledSlotsAreCompactedAndLiveOnesSurvive() {
        var queue = TimerQueue<TimerEvent>()
        var ids: [TimerID] = []
        for index in 0..<1000 {
            ids.append(queue.schedule(.forget(sessionId: "\(index)"), at: Int64(1000 - index)))
        }
        for (index, id) in ids.enumerated() where index % 10 != 0 {
            queue.cancel(id)
        }
        #expect(queue.count == 100)
        var fired: [TimerEvent] = []
        while let event = queue.popDue(now: .max) {
            fired.append(event)
        }
        let expected = stride(from: 990, through: 0, by: -10).map { TimerEvent.forget(sessionId: "\($0)") }
        #expect(fired == expected)
    }
}
