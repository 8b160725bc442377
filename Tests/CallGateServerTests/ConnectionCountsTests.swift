@testable import CallGateServer
import Testing

@Suite("Socket counts per address and per process")
struct ConnectionCountsTests {
    @Test func anAddressAtItsCapIsRefusedAndOthersAreNot() {
        var counts = ConnectionCounts(maxTotal: 100, maxPerAddress: 2)
        counts.opened("10.0.0.1")
        #expect(counts.limitReached(by: "10.0.0.1") == nil)
        counts.opened("10.0.0.1")
        #expect(counts.limitReached(by: "10.0.0.1") == .addressFull)
        #expect(counts.limitReached(by: "10.0.0.2") == nil)
    }

    @Test func aFullProcessRefusesEveryAddress() {
        var counts = ConnectionCounts(maxTotal: 3, maxPerAddress: 2)
        counts.opened("a")
        counts.opened("b")
        counts.opened("c")
        #expect(counts.limitReached(by: "d") == .serverFull)
        #expect(counts.limitReached(by: "a") == .serverFull)
    }

    @Test func closingGivesTheSlotBack() {
        var counts = ConnectionCounts(maxTotal: 2, maxPerAddress: 1)
        counts.opened("a")
        counts.opened("b")
        counts.closed("a")
        #expect(counts.total == 1)
        #expect(counts.count(for: "a") == 0)
        #expect(counts.limitReached(by: "a") == nil)
    }

    @Test func aCloseOfAnUnknownAddressChangesNothing() {
        var counts = ConnectionCounts(maxTotal: 2, maxPerAddress: 2)
        counts.opened("a")
        counts.closed("b")
        #expect(counts.total == 1)
        #expect(counts.count(for: "a") == 1)
    }
}
