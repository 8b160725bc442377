import CallGateCore
import Testing

/// The paging rules over a list already filtered and sorted newest first: numbered pages (with
/// an empty page past the end pointing back at the last call), cursor pages both ways that do
/// not shift when newer calls arrive, and which of next/previous a page has.
@Suite struct CallLogPagingTests {
    /// Calls 7 (newest) down to 1.
    let seven = (1...7).reversed().map { CallLogRecord.sample(Int64($0)) }

    private func page(
        _ matching: [CallLogRecord], _ position: CallLogQuery.Position, perPage: Int = 3
    ) -> CallLogPage {
        CallLogPaging.page(of: matching, for: CallLogQuery(viewer: "alice", perPage: perPage, position: position))
    }

    private func ids(_ page: CallLogPage) -> [Int64] {
        page.records.map(\.id)
    }

    @Test func numberedPagesSplitTheListNewestFirst() {
        #expect(page(seven, .page(1)) == CallLogPage(
            records: Array(seven[0..<3]), total: 7, currentPage: 1, next: .olderThan(5), previous: nil))
        #expect(page(seven, .page(2)) == CallLogPage(
            records: Array(seven[3..<6]), total: 7, currentPage: 2, next: .olderThan(2), previous: .newerThan(4)))
        #expect(page(seven, .page(3)) == CallLogPage(
            records: [seven[6]], total: 7, currentPage: 3, next: nil, previous: .newerThan(1)))
    }

    @Test func aPageNumberBelowOneIsTheFirstPage() {
        #expect(page(seven, .page(0)) == page(seven, .page(1)))
        #expect(page(seven, .page(-5)) == page(seven, .page(1)))
    }

    @Test func aPagePastTheEndIsEmptyAndPointsBackAtTheLastCalls() {
        let past = page(seven, .page(4))
        #expect(past == CallLogPage(records: [], total: 7, currentPage: 4, next: nil, previous: .newerThan(0)))
        #expect(ids(page(seven, .cursor(.newerThan(0)))) == [3, 2, 1])
        #expect(page(seven, .page(Int.max)).records.isEmpty)
        #expect(page(seven, .page(Int.max)).currentPage == Int.max)
    }

    @Test func anEmptyListIsOneEmptyPage() {
        #expect(page([], .page(1)) == CallLogPage(records: [], total: 0, currentPage: 1, next: nil, previous: nil))
        #expect(page([], .cursor(.olderThan(5))).records.isEmpty)
        #expect(page([], .cursor(.newerThan(5))).records.isEmpty)
    }

    @Test func cursorsWalkBothWays() {
        let second = page(seven, .cursor(.olderThan(5)))
        #expect(second == CallLogPage(
            records: Array(seven[3..<6]), total: 7, currentPage: 2, next: .olderThan(2), previous: .newerThan(4)))
        #expect(ids(page(seven, .cursor(.olderThan(2)))) == [1])
        #expect(page(seven, .cursor(.olderThan(2))).next == nil)

        let back = page(seven, .cursor(.newerThan(4)))
        #expect(back == CallLogPage(
            records: Array(seven[0..<3]), total: 7, currentPage: 1, next: .olderThan(5), previous: nil))
        // Not aligned to page numbers: the three calls just newer than 2.
        #expect(ids(page(seven, .cursor(.newerThan(2)))) == [5, 4, 3])
        #expect(page(seven, .cursor(.newerThan(2))).previous == .newerThan(5))
        #expect(ids(page(seven, .cursor(.newerThan(5)))) == [7, 6])
        #expect(page(seven, .cursor(.newerThan(5))).previous == nil)
    }

    @Test func cursorsNeedNotNameAListedCall() {
        let odd = seven.filter { $0.id % 2 == 1 }
        #expect(ids(page(odd, .cursor(.olderThan(6)), perPage: 2)) == [5, 3])
        #expect(ids(page(odd, .cursor(.newerThan(2)), perPage: 2)) == [5, 3])
        #expect(ids(page(odd, .cursor(.olderThan(100)), perPage: 2)) == [7, 5])
    }

    @Test func newCallsArrivingBetweenPagesDoNotShiftTheNextPage() throws {
        let first = page(seven, .page(1))
        let nine = [CallLogRecord.sample(9), .sample(8)] + seven
        let second = page(nine, .cursor(try #require(first.next)))
        #expect(ids(second) == [4, 3, 2])
        #expect(second.total == 9)
        // Back from there is the page the user saw, not the new calls.
        #expect(ids(page(nine, .cursor(try #require(second.previous)))) == [7, 6, 5])
        // While numbered pages do shift.
        #expect(ids(page(nine, .page(2))) == [6, 5, 4])
    }

    @Test func aPageSizeBelowOneIsOne() {
        #expect(ids(page(seven, .page(2), perPage: 0)) == [6])
        #expect(ids(page(seven, .page(1), perPage: -3)) == [7])
    }

    @Test func aHugePageSizeDoesNotOverflow() {
        #expect(ids(page(seven, .page(1), perPage: .max)) == [7, 6, 5, 4, 3, 2, 1])
        #expect(page(seven, .page(2), perPage: .max).records.isEmpty)
        #expect(ids(page(seven, .cursor(.olderThan(5)), perPage: .max)) == [4, 3, 2, 1])
        #expect(ids(page(seven, .cursor(.newerThan(1)), perPage: .max)) == [7, 6, 5, 4, 3, 2])
    }
}
