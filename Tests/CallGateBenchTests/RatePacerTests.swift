import Testing

@testable import CallGateBench

@Suite struct RatePacerTests {
    private let second: UInt64 = 1_000_000_000

    @Test func releasesEventsEvenlyAtTheRate() {
        var pacer = RatePacer(rate: 100, start: 0)
        #expect(pacer.due(now: 0) == 0)
        #expect(pacer.due(now: second / 100) == 1)
        #expect(pacer.due(now: second / 100 + 1) == 0)
        var total = 1
        for millisecond in stride(from: 11, through: 1_000, by: 1) {
            total += pacer.due(now: UInt64(millisecond) * 1_000_000)
        }
        #expect(total == 100)
        #expect(pacer.dropped == 0)
    }

    @Test func aLateTickCatchesUp() {
        var pacer = RatePacer(rate: 1_000, start: 0)
        #expect(pacer.due(now: 50_000_000) == 50)
    }

    @Test func aBacklogPastTheBurstCapIsDroppedAndCounted() {
        var pacer = RatePacer(rate: 1_000, start: 0, maxBurst: 10)
        #expect(pacer.due(now: second) == 10)
        #expect(pacer.dropped == 990)
        #expect(pacer.due(now: second + 2_000_000) == 2)
    }

    @Test func aClockBeforeTheStartReleasesNothing() {
        var pacer = RatePacer(rate: 10, start: 5 * second)
        #expect(pacer.due(now: second) == 0)
    }
}
