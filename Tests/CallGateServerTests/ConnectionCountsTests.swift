@testable import CallGateServer
import Testing

@Suite("Connection counts per address and per process")
struct ConnectionCountsTests {
    @Test func anAddressAtItsCapIsRefusedAndOthersAreNot() {
        var counts = ConnectionCounts(maxTotal: 100, maxPerAddress: 2)
        counts.add(inTotal: true, address: "10.0.0.1")
        #expect(counts.limitReached(inTotal: true, address: "10.0.0.1") == nil)
        counts.add(inTotal: true, address: "10.0.0.1")
        #expect(counts.limitReached(inTotal: true, address: "10.0.0.1") == .addressFull)
        #expect(counts.limitReached(inTotal: true, address: "10.0.0.2") == nil)
        #expect(counts.limitReached(inTotal: true, address: nil) == nil)
    }

    @Test func aFullProcessRefusesEveryAddressButNotWhatIsCountedInItAlready() {
        var counts = ConnectionCounts(maxTotal: 3, maxPerAddress: 2)
        counts.add(inTotal: true, address: "a")
        counts.add(inTotal: true, address: "b")
        counts.add(inTotal: true, address: nil)
        #expect(counts.limitReached(inTotal: true, address: "d") == .serverFull)
        #expect(counts.limitReached(inTotal: true, address: nil) == .serverFull)
        #expect(counts.limitReached(inTotal: false, address: "d") == nil)
    }

    @Test func removingGivesTheSlotBack() {
        var counts = ConnectionCounts(maxTotal: 2, maxPerAddress: 1)
        counts.add(inTotal: true, address: "a")
        counts.add(inTotal: true, address: "b")
        counts.remove(inTotal: true, address: "a")
        #expect(counts.total == 1)
        #expect(counts.count(for: "a") == 0)
        #expect(counts.limitReached(inTotal: true, address: "a") == nil)
    }

    @Test func removingWhatWasNeverCountedChangesNothingAndNeverGoesNegative() {
        var counts = ConnectionCounts(maxTotal: 2, maxPerAddress: 2)
        counts.add(inTotal: false, address: "a")
        counts.remove(inTotal: true, address: "b")
        counts.remove(inTotal: true, address: "b")
        #expect(counts.total == 0)
        #expect(counts.count(for: "a") == 1)
    }
}
