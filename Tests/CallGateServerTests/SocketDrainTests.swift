import CallGateCore
@testable import CallGateServer
import Testing

/// The drain's schedule: how many of the sockets it began with are due at each moment, in which
/// order they go, and when it is over. Pure, driven by the moments given.
@Suite struct SocketDrainTests {
    /// A timer that only remembers its last schedule.
    final class NoteTimer: DeadlineTimer {
        var scheduled: [Int64] = []
        func schedule(afterMicroseconds microseconds: Int64) -> Bool {
            scheduled.append(microseconds)
            return true
        }
    }

    @Test func closesAreSpreadEvenlyFromTheFirstTickToTheEndOfTheWindow() {
        let plan = DrainPlan(startedAt: 1_000, windowMillis: 30_000, sockets: 10_000)
        #expect(plan.due(now: 1_000) == 0)
        #expect(plan.due(now: 1_100) == 34, "a tenth of a second in: 10,000 / 300, rounded up")
        #expect(plan.due(now: 16_000) == 5_000)
        #expect(plan.due(now: 30_997) == 9_999)
        #expect(plan.due(now: 30_998) == 10_000, "the last one goes in the window's last milliseconds")
        #expect(plan.due(now: 31_000) == 10_000)
        #expect(plan.due(now: 99_000) == 10_000, "never more than it began with")
        #expect(plan.due(now: 0) == 0, "a clock before the start counts as the start")
        #expect(DrainPlan(startedAt: 5, windowMillis: 0, sockets: 7).due(now: 5) == 7, "a zero window closes all at once")
        #expect(DrainPlan(startedAt: 5, windowMillis: 3_600_000, sockets: 0).due(now: 9_000_000) == 0)
        #expect(DrainPlan(startedAt: .max - 10, windowMillis: 3_600_000, sockets: 20_000).due(now: .max) >= 0)
    }

    @Test func theOldestGoFirstAndThoseGoneMeanwhileCountAsHandled() {
        let plan = DrainPlan(startedAt: 0, windowMillis: 1_000, sockets: 4)
        let drain = SocketDrain(plan: plan, sockets: [ConnectionID(7), ConnectionID(3), ConnectionID(9), ConnectionID(5)], timer: NoteTimer())
        let open: Set<ConnectionID> = [ConnectionID(7), ConnectionID(9), ConnectionID(5)]
        #expect(drain.nextDue(now: 0) { open.contains($0) } == nil, "nothing is due before the first tick")
        #expect(drain.nextDue(now: 100) { open.contains($0) } == nil, "the oldest, 3, closed by itself")
        #expect(drain.handled == 1, "1 of 4 due at a tenth of the window, and it counts")
        #expect(drain.nextDue(now: 300) { open.contains($0) } == ConnectionID(5))
        #expect(drain.nextDue(now: 300) { open.contains($0) } == nil, "2 of 4 due at three tenths")
        #expect(drain.nextDue(now: 1_000) { open.contains($0) } == ConnectionID(7))
        #expect(drain.nextDue(now: 1_000) { open.contains($0) } == ConnectionID(9))
        #expect(drain.nextDue(now: 1_000) { open.contains($0) } == nil)
        #expect(drain.closing == [ConnectionID(5), ConnectionID(7), ConnectionID(9)])
        #expect(drain.closeLate([ConnectionID(9), ConnectionID(11)]) == [ConnectionID(11)],
                "a socket it did not begin with is closed at the end, one it closed is not closed again")
        #expect(drain.closeLate([ConnectionID(11)]).isEmpty, "closed once only")
    }

    @Test func everyWaiterIsToldOnceWhenItIsOver() {
        let drain = SocketDrain(plan: DrainPlan(startedAt: 0, windowMillis: 0, sockets: 0), sockets: [], timer: NoteTimer())
        var told = 0
        drain.whenOver { told += 1 }
        drain.whenOver { told += 1 }
        drain.end()
        drain.end()
        #expect(told == 2)
        drain.whenOver { told += 1 }
        #expect(told == 3, "a waiter that comes after the end is told at once")
        #expect(drain.isOver)
    }
}
