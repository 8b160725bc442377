@testable import CallGateServer
import Testing

@Suite("Burst log: a flood of refusals is one line per period")
struct BurstLogTests {
    @Test func theFirstEventIsLoggedAtOnce() {
        var log = BurstLog(periodMillis: 10_000)
        #expect(log.record(now: 5) == 1)
    }

    @Test func eventsWithinThePeriodAreHeldAndReportedTogether() {
        var log = BurstLog(periodMillis: 10_000)
        #expect(log.record(now: 0) == 1)
        for now in stride(from: Int64(1), to: 10_000, by: 10) {
            #expect(log.record(now: now) == nil)
        }
        #expect(log.record(now: 10_000) == 1001, "1000 held back, and this one")
        #expect(log.record(now: 10_001) == nil)
    }

    @Test func aLoneEventAfterAQuietPeriodIsLoggedAlone() {
        var log = BurstLog(periodMillis: 10_000)
        _ = log.record(now: 0)
        #expect(log.record(now: 60_000) == 1)
    }
}
