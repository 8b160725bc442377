@testable import LWS
import Testing

@Suite("Liveness policy: when a quiet socket is pinged and dropped")
struct LivenessPolicyTests {
    let policy = LivenessPolicy(intervalMillis: 60_000)

    @Test func derivesItsPeriodsFromTheInterval() {
        #expect(policy.visitPeriodMillis == 7_500)
        #expect(policy.pingAfterMillis == 30_000)
        #expect(policy.dropAfterMillis == 52_500)
    }

    @Test func aSocketHeardFromRecentlyIsKept() {
        #expect(policy.verdict(idleMillis: 0, pinged: false, closingForMillis: nil) == .keep)
        #expect(policy.verdict(idleMillis: 29_999, pinged: false, closingForMillis: nil) == .keep)
    }

    @Test func aSocketQuietForHalfTheIntervalIsPingedOnce() {
        #expect(policy.verdict(idleMillis: 30_000, pinged: false, closingForMillis: nil) == .ping)
        #expect(policy.verdict(idleMillis: 40_000, pinged: true, closingForMillis: nil) == .keep)
    }

    @Test func aSocketQuietForSevenEighthsOfTheIntervalIsDropped() {
        #expect(policy.verdict(idleMillis: 52_499, pinged: true, closingForMillis: nil) == .keep)
        #expect(policy.verdict(idleMillis: 52_500, pinged: true, closingForMillis: nil) == .drop)
        #expect(policy.verdict(idleMillis: 90_000, pinged: false, closingForMillis: nil) == .drop)
    }

    /// Visits come every visit period, so the first visit at or past the drop threshold is
    /// still before the interval has passed: a dead peer is gone within the interval.
    @Test func aDeadPeerIsDroppedWithinTheInterval() {
        for phase in stride(from: Int64(0), to: policy.visitPeriodMillis, by: 500) {
            var visit = phase
            while policy.verdict(idleMillis: visit, pinged: true, closingForMillis: nil) != .drop {
                visit += policy.visitPeriodMillis
            }
            #expect(visit < policy.intervalMillis, "visits at \(phase) + k·P drop at \(visit)")
        }
    }

    @Test func aSocketStuckClosingForAVisitPeriodIsDropped() {
        #expect(policy.verdict(idleMillis: 0, pinged: false, closingForMillis: 7_499) == .keep)
        #expect(policy.verdict(idleMillis: 0, pinged: false, closingForMillis: 7_500) == .drop)
    }
}
