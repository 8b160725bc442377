@testable import CallGateCore
import CallGateProtocol
import Testing

/// Where call log ids come from: one counter for a single process, reserved blocks in a cluster.
@Suite struct CallIDSourceTests {
    /// Records each reservation `ReservedCallIDs` asks for.
    final class Reservations {
        var asked = 0
    }

    @Test func aCounterGoesOnAfterTheIdsSkippedAndStopsAtTheTop() {
        let ids = CountingCallIDs()
        #expect(ids.next() == 1)
        ids.skip(past: 41)
        #expect(ids.next() == 42)
        ids.skip(past: 7)
        #expect(ids.next() == 43)
        ids.skip(past: Int64.max - 1)
        #expect(ids.next() == Int64.max)
        #expect(ids.next() == nil, "no id past the last one, rather than a trap")
    }

    @Test func reservedBlocksAreUsedInOrderAndRefilledOnceWhenLow() {
        let reservations = Reservations()
        let ids = ReservedCallIDs(lowWater: 3) { reservations.asked += 1 }
        #expect(ids.next() == nil, "none before the first block")
        #expect(reservations.asked == 1)
        #expect(ids.next() == nil)
        #expect(reservations.asked == 1, "one reservation at a time")
        ids.add(100...104)
        #expect(reservations.asked == 1)
        #expect([ids.next(), ids.next()] == [100, 101])
        #expect(reservations.asked == 1, "3 left")
        #expect(ids.next() == 102)
        #expect(reservations.asked == 2, "fewer than 3 left: one more block asked for")
        ids.add(500...501)
        #expect([ids.next(), ids.next()] == [103, 104])
        #expect(reservations.asked == 3)
        #expect(ids.next() == 500)
        #expect(reservations.asked == 3, "still waiting for the last one asked")
        ids.reservationFailed()
        #expect(ids.next() == 501)
        #expect(reservations.asked == 4, "a failed reservation is asked again")
        #expect(ids.next() == nil)
        #expect(reservations.asked == 4)
    }

    @Test func reservedIdsSkipWhatRestoredCallsHold() {
        let ids = ReservedCallIDs(lowWater: 0) {}
        ids.add(10...19)
        ids.add(30...39)
        ids.skip(past: 12)
        #expect(ids.next() == 13)
        ids.skip(past: 25)
        #expect(ids.next() == 30)
        #expect(ids.remaining == 9)
    }

    @Test func withNoIdLeftACallOrMeetingIsRefusedAsTheStoreBeingUnavailable() throws {
        let f = Fixture(callIDs: ReservedCallIDs {})
        let a = f.connect("alice")
        f.connect("bob")
        let refused = f.call("bob", from: a)
        #expect(refused.errorCode == .storeUnavailable)
        #expect(refused.deliveries.isEmpty)
        #expect(f.core.activeCallCount == 0)
        #expect(f.join("room-1", from: a).errorCode == .storeUnavailable)
        #expect(f.core.activeSessionCount == 0)
    }
}
