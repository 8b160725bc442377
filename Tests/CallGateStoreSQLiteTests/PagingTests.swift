import CallGateCore
import StoreTestSupport
import Testing

@testable import CallGateStoreSQLite

/// Page numbers and cursors over alice's calls 1 to 10 (with calls of others in between).
struct PagingTests {
    /// Runs `body` on a store holding alice's calls 1...10 and calls 101...105 she is not part of.
    private func withTenCalls(_ body: (SQLiteCallLogStore) throws -> Void) throws {
        try withStore { store, _ in
            let mine = (1...10).map { TestCalls.direct(Int64($0), from: "alice", to: "bob") }
            let others = (101...105).map { TestCalls.direct(Int64($0), from: "carol", to: "dave") }
            try store.apply(TestCalls.writes(mine + others))
            try body(store)
        }
    }

    /// The page at `position` of alice's calls, 3 a page.
    private func page(_ store: SQLiteCallLogStore, _ position: CallLogQuery.Position, perPage: Int = 3) throws
        -> CallLogPage
    {
        try store.page(CallLogQuery(viewer: "alice", perPage: perPage, position: position))
    }

    @Test func pageNumbers() throws {
        try withTenCalls { store in
            let first = try page(store, .page(1))
            #expect(first.records.map(\.id) == [10, 9, 8])
            #expect((first.total, first.currentPage, first.next, first.previous) == (10, 1, .olderThan(8), nil))
            let second = try page(store, .page(2))
            #expect(second.records.map(\.id) == [7, 6, 5])
            #expect((second.currentPage, second.next, second.previous) == (2, .olderThan(5), .newerThan(7)))
            let last = try page(store, .page(4))
            #expect(last.records.map(\.id) == [1])
            #expect((last.currentPage, last.next, last.previous) == (4, nil, .newerThan(1)))
        }
    }

    @Test func pagesPastTheEndAreEmptyAndPointBackAtTheOldestCall() throws {
        try withTenCalls { store in
            let past = try page(store, .page(5))
            #expect(past.records.isEmpty)
            #expect((past.total, past.currentPage, past.next, past.previous) == (10, 5, nil, .newerThan(0)))
            let huge = try page(store, .page(Int.max))
            #expect(huge.records.isEmpty)
            #expect((huge.currentPage, huge.previous) == (Int.max, .newerThan(0)))
            let older = try page(store, .cursor(.olderThan(1)))
            #expect(older.records.isEmpty)
            #expect((older.currentPage, older.next, older.previous) == (4, nil, .newerThan(0)))
        }
    }

    @Test func pageNumbersAndSizesBelowOneCountAsOne() throws {
        try withTenCalls { store in
            let zero = try page(store, .page(0), perPage: 0)
            #expect(zero.records.map(\.id) == [10])
            #expect((zero.currentPage, zero.next) == (1, .olderThan(10)))
        }
    }

    @Test func olderThanCursors() throws {
        try withTenCalls { store in
            let page2 = try page(store, .cursor(.olderThan(8)))
            #expect(page2.records.map(\.id) == [7, 6, 5])
            #expect((page2.currentPage, page2.next, page2.previous) == (2, .olderThan(5), .newerThan(7)))
            let fromAGap = try page(store, .cursor(.olderThan(50)))
            #expect(fromAGap.records.map(\.id) == [10, 9, 8])
            #expect((fromAGap.currentPage, fromAGap.previous) == (1, nil))
        }
    }

    @Test func newerThanCursors() throws {
        try withTenCalls { store in
            let above5 = try page(store, .cursor(.newerThan(5)))
            #expect(above5.records.map(\.id) == [8, 7, 6])
            #expect((above5.currentPage, above5.next, above5.previous) == (1, .olderThan(6), .newerThan(8)))
            let top = try page(store, .cursor(.newerThan(8)))
            #expect(top.records.map(\.id) == [10, 9])
            #expect((top.currentPage, top.next, top.previous) == (1, .olderThan(9), nil))
            let none = try page(store, .cursor(.newerThan(10)))
            #expect(none.records.isEmpty)
            #expect((none.total, none.next, none.previous) == (10, nil, nil))
        }
    }

    @Test func aCursorStaysPutWhileNewCallsArrive() throws {
        try withTenCalls { store in
            let first = try page(store, .page(1))
            try store.apply(TestCalls.writes([
                TestCalls.direct(11, from: "bob", to: "alice"), TestCalls.direct(12, from: "alice", to: "carol"),
            ]))
            let next = try page(store, .cursor(try #require(first.next)))
            #expect(next.records.map(\.id) == [7, 6, 5])
            #expect((next.total, next.currentPage) == (12, 2))
            let back = try page(store, .cursor(try #require(next.previous)))
            #expect(back.records.map(\.id) == [10, 9, 8])
            #expect(back.previous == .newerThan(10))
            let newest = try page(store, .cursor(try #require(back.previous)))
            #expect(newest.records.map(\.id) == [12, 11])
            #expect(newest.previous == nil)
        }
    }

    @Test func cursorsFollowTheFilter() throws {
        try withTenCalls { store in
            try store.apply(TestCalls.writes((11...16).map { TestCalls.direct(Int64($0), from: "bob", to: "alice") }))
            let incoming = CallLogFilter(direction: .incoming)
            let first = try store.page(CallLogQuery(viewer: "alice", filter: incoming, perPage: 4))
            #expect(first.records.map(\.id) == [16, 15, 14, 13])
            #expect((first.total, first.next) == (6, .olderThan(13)))
            let rest = try store.page(CallLogQuery(viewer: "alice", filter: incoming, perPage: 4, position: .cursor(.olderThan(13))))
            #expect(rest.records.map(\.id) == [12, 11])
            #expect((rest.currentPage, rest.next, rest.previous) == (2, nil, .newerThan(12)))
        }
    }
}
