@testable import CallGateServer
import Testing

@Suite("Token bucket of a socket's message rate")
struct TokenBucketTests {
    /// Takes `count` tokens at `now`; returns how many were granted.
    private func take(_ count: Int, from bucket: inout TokenBucket, at now: Int64) -> Int {
        (0..<count).filter { _ in bucket.take(now: now) }.count
    }

    @Test func aFullBucketAllowsItsBurstAtOnceThenNoMore() {
        var bucket = TokenBucket(ratePerSecond: 50, burst: 50, now: 0)
        #expect(take(51, from: &bucket, at: 0) == 50)
    }

    @Test func tokensComeBackAtTheRate() {
        var bucket = TokenBucket(ratePerSecond: 50, burst: 50, now: 0)
        _ = take(50, from: &bucket, at: 0)
        #expect(take(1, from: &bucket, at: 19) == 0)
        #expect(take(2, from: &bucket, at: 20) == 1)
        #expect(take(20, from: &bucket, at: 220) == 10)
    }

    @Test func aSteadyRateJustUnderTheLimitIsNeverRefused() {
        var bucket = TokenBucket(ratePerSecond: 10, burst: 10, now: 0)
        let granted = (0..<1000).filter { step in bucket.take(now: Int64(step) * 100) }.count
        #expect(granted == 1000)
    }

    @Test func aLongPauseRefillsOnlyUpToTheBurst() {
        var bucket = TokenBucket(ratePerSecond: 5, burst: 5, now: 0)
        _ = take(5, from: &bucket, at: 0)
        #expect(take(10, from: &bucket, at: 3_600_000) == 5)
    }

    @Test func timeGoingBackwardsRefillsNothing() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 1, now: 10_000)
        #expect(take(1, from: &bucket, at: 10_000) == 1)
        #expect(take(1, from: &bucket, at: 5_000) == 0)
        #expect(take(1, from: &bucket, at: 10_999) == 0)
        #expect(take(1, from: &bucket, at: 11_000) == 1)
    }
}
