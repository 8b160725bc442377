@testable import CallGateServer
import Testing

/// An endpoint's circuit breaker: open after the threshold of failures in a row, one probe once
/// the cooldown passed, closed by an answer, longer cooldowns after failed probes.
@Suite struct WebhookBreakerTests {
    private func breaker() -> WebhookBreaker {
        WebhookBreaker(threshold: 3, cooldown: 1_000, maxCooldown: 3_000)
    }

    @Test func aClosedBreakerLetsTheShareGoAndAnAnswerResetsTheCount() {
        var breaker = breaker()
        #expect(breaker.room(share: 8, inFlight: 3, at: 0) == 5)
        breaker.ended(failed: true, at: 0)
        breaker.ended(failed: true, at: 0)
        breaker.ended(failed: false, at: 0)
        breaker.ended(failed: true, at: 0)
        breaker.ended(failed: true, at: 0)
        #expect(breaker.state == .closed(failures: 2), "an answer between failures starts the count again")
    }

    @Test func failuresInARowOpenItUntilTheCooldownThenOneProbeGoes() {
        var breaker = breaker()
        for _ in 0..<3 {
            breaker.ended(failed: true, at: 100)
        }
        #expect(breaker.state == .open(until: 1_100, cooldown: 1_000) && breaker.reopensAt == 1_100)
        #expect(breaker.room(share: 8, inFlight: 0, at: 1_099) == 0)
        breaker.ended(failed: true, at: 1_099)
        #expect(breaker.reopensAt == 1_100, "a late failure of an attempt already in flight extends nothing")
        #expect(breaker.room(share: 8, inFlight: 2, at: 1_100) == 0, "no probe while older attempts are in flight")
        #expect(breaker.room(share: 8, inFlight: 0, at: 1_100) == 1)
        breaker.started(1)
        #expect(breaker.room(share: 8, inFlight: 1, at: 1_200) == 0, "one probe at a time")
        breaker.ended(failed: false, at: 1_300)
        #expect(breaker.state == .closed(failures: 0) && breaker.room(share: 8, inFlight: 0, at: 1_300) == 8)
    }

    @Test func aFailedProbeDoublesTheCooldownUpToItsMost() {
        var breaker = breaker()
        for _ in 0..<3 {
            breaker.ended(failed: true, at: 0)
        }
        var now: Int64 = 1_000
        for expected: Int64 in [2_000, 3_000, 3_000] {
            #expect(breaker.room(share: 4, inFlight: 0, at: now) == 1)
            breaker.started(1)
            breaker.ended(failed: true, at: now)
            #expect(breaker.state == .open(until: now + expected, cooldown: expected))
            now += expected
        }
        #expect(breaker.gaugeValue == 2)
    }
}
