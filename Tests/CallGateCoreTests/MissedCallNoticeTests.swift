@testable import CallGateCore
import CallGateProtocol
import Testing

/// Telling a user's devices their count of unseen missed calls: the newest revision only, the
/// first change after a quiet interval at once, the changes within it in one push at its end,
/// the interval doubling while changes keep coming and back to itself after a quiet one, and a
/// change the user made at once. bob has two devices.
@Suite struct MissedCallNoticeTests {
    let f = Fixture(CoreConfiguration(missedCallsInterval: .seconds(1)))
    let b: [ConnectionID]

    init() {
        b = f.devices("bob", 2)
    }

    private func count(_ unseen: Int, _ revision: Int64) -> MissedCalls {
        MissedCalls(unseen: unseen, revision: revision)
    }

    private func told(_ unseen: Int, _ revision: Int64) -> [Sent] {
        [delivery(.missedCallsChanged(count(unseen, revision)), b)]
    }

    @Test func theFirstChangeIsToldToEveryDeviceAtOnce() {
        #expect(f.missedCallsChanged(["bob": count(1, 1)]) == told(1, 1))
        #expect(f.core.missedCalls(of: "bob") == count(1, 1))
    }

    @Test func changesWithinTheIntervalAreToldInOnePushAtItsEnd() {
        _ = f.missedCallsChanged(["bob": count(1, 1)])
        f.advance(millis: 300)
        #expect(f.missedCallsChanged(["bob": count(2, 2)]).isEmpty)
        #expect(f.missedCallsChanged(["bob": count(3, 3)]).isEmpty)
        #expect(f.core.missedCalls(of: "bob") == count(3, 3), "a device arriving now is told the newest")
        f.advance(millis: 699)
        #expect(f.fireDueTimers().isEmpty)
        f.advance(millis: 1)
        #expect(f.fireDueTimers() == told(3, 3))
    }

    /// Counts a node hears out of order come close together (a `markCallsSeen` answer and a
    /// commit): within the interval of the newer one. Later, devices keep the highest revision.
    @Test func anOlderRevisionWithinTheIntervalIsNotTold() {
        _ = f.missedCallsChanged(["bob": count(2, 5)])
        f.advance(millis: 10)
        #expect(f.missedCallsChanged(["bob": count(1, 4)]).isEmpty, "news older than the last told")
        #expect(f.missedCallsChanged(["bob": count(1, 4)], urgent: true).isEmpty)
        #expect(f.missedCallsChanged(["bob": count(2, 5)]).isEmpty, "the same revision again")
        f.advance(seconds: 1)
        #expect(f.fireDueTimers().isEmpty)
    }

    @Test func theIntervalDoublesWhileChangesKeepComingAndResetsAfterAQuietOne() {
        var revision: Int64 = 1
        _ = f.missedCallsChanged(["bob": count(1, revision)])
        var gaps: [Int64] = []
        var last = f.core.monotonicNow
        // A change every 100 ms for 40 s: pushes come 1, 2, 4, 8, 16, 16 s apart.
        for _ in 0..<400 {
            f.advance(millis: 100)
            if !f.fireDueTimers().isEmpty {
                gaps.append(f.core.monotonicNow - last)
                last = f.core.monotonicNow
            }
            revision += 1
            #expect(f.missedCallsChanged(["bob": count(Int(revision), revision)]).isEmpty)
        }
        #expect(gaps == [1000, 2000, 4000, 8000, 16000])
        // Quiet: the held change goes at the end of the interval, then the interval ends empty.
        f.advance(seconds: 16)
        #expect(f.fireDueTimers() == told(Int(revision), revision))
        f.advance(seconds: 16)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.core.missedCalls(of: "bob") == nil, "nothing is kept once a quiet interval ended")
        revision += 1
        #expect(f.missedCallsChanged(["bob": count(0, revision)]) == told(0, revision), "at once again")
        f.advance(millis: 300)
        revision += 1
        #expect(f.missedCallsChanged(["bob": count(1, revision)]).isEmpty)
        f.advance(millis: 700)
        #expect(f.fireDueTimers() == told(1, revision), "the base interval again")
    }

    @Test func aChangeTheUserMadeIsToldAtOnceWithWhatWasHeldBack() {
        _ = f.missedCallsChanged(["bob": count(1, 1)])
        f.advance(millis: 100)
        #expect(f.missedCallsChanged(["bob": count(2, 2)]).isEmpty)
        #expect(f.missedCallsChanged(["bob": count(0, 3)], urgent: true) == told(0, 3))
        f.advance(seconds: 2)
        #expect(f.fireDueTimers().isEmpty, "nothing held back any more")
        // An urgent count older than one held back tells the held one.
        _ = f.missedCallsChanged(["bob": count(1, 4)])
        f.advance(millis: 100)
        _ = f.missedCallsChanged(["bob": count(2, 6)])
        #expect(f.missedCallsChanged(["bob": count(1, 5)], urgent: true) == told(2, 6))
    }
}
