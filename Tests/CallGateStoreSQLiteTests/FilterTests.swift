import CallGateCore
import StoreTestSupport
import Testing

@testable import CallGateStoreSQLite

/// Every filter of `GET /v3.0/calls`, direction from both sides, and visibility.
struct FilterTests {
    /// Seven calls; alice is part of all but call 5.
    private static let calls = [
        TestCalls.direct(1, from: "alice", to: "bob", type: .audio, rids: ["s1-r1"]),
        TestCalls.direct(2, from: "bob", to: "alice", status: .unanswered, type: .video),
        TestCalls.group(3, from: "alice", guid: "g1", members: ["bob", "carol"], status: .ended, type: .video),
        TestCalls.meeting(4, session: "room", members: ["carol", "alice"], status: .ongoing),
        TestCalls.direct(5, from: "carol", to: "dave"),
        TestCalls.group(6, from: "dave", guid: "g2", members: ["alice"], status: .cancelled, type: .audio),
        TestCalls.direct(7, from: "alice", to: "carol", status: .busy, type: .video),
    ]

    /// The ids `viewer` gets with `filter`, newest first.
    private func ids(_ viewer: String, _ filter: CallLogFilter = .init()) throws -> [Int64] {
        try withStore { store, _ in
            try store.apply(TestCalls.writes(Self.calls))
            return try store.page(CallLogQuery(viewer: viewer, filter: filter, perPage: 50)).records.map(\.id)
        }
    }

    @Test func aUserSeesOnlyTheCallsTheyWerePartOf() throws {
        #expect(try ids("alice") == [7, 6, 4, 3, 2, 1])
        #expect(try ids("bob") == [3, 2, 1])
        #expect(try ids("dave") == [6, 5])
        #expect(try ids("erin") == [])
    }

    @Test func mode() throws {
        #expect(try ids("alice", CallLogFilter(category: .meet)) == [4])
        #expect(try ids("alice", CallLogFilter(category: .call)) == [7, 6, 3, 2, 1])
    }

    @Test func type() throws {
        #expect(try ids("alice", CallLogFilter(callType: .video)) == [7, 4, 3, 2])
        #expect(try ids("alice", CallLogFilter(callType: .audio)) == [6, 1])
    }

    @Test func status() throws {
        #expect(try ids("alice", CallLogFilter(status: .ended)) == [3, 1])
        #expect(try ids("alice", CallLogFilter(status: .busy)) == [7])
        #expect(try ids("alice", CallLogFilter(status: .rejected)) == [])
    }

    @Test func directionIsSeenFromTheViewersSide() throws {
        #expect(try ids("alice", CallLogFilter(direction: .outgoing)) == [7, 3, 1])
        #expect(try ids("alice", CallLogFilter(direction: .incoming)) == [6, 4, 2])
        #expect(try ids("bob", CallLogFilter(direction: .outgoing)) == [2])
        #expect(try ids("bob", CallLogFilter(direction: .incoming)) == [3, 1])
    }

    @Test func hasRecording() throws {
        #expect(try ids("alice", CallLogFilter(hasRecording: true)) == [1])
        #expect(try ids("carol", CallLogFilter(hasRecording: true)) == [])
    }

    @Test func withAnotherUser() throws {
        #expect(try ids("alice", CallLogFilter(withUser: "carol")) == [7, 4, 3])
        #expect(try ids("alice", CallLogFilter(withUser: "dave")) == [6])
        #expect(try ids("bob", CallLogFilter(withUser: "dave")) == [])
    }

    @Test func toAGroup() throws {
        #expect(try ids("alice", CallLogFilter(group: "g1")) == [3])
        #expect(try ids("alice", CallLogFilter(group: "g2")) == [6])
        #expect(try ids("carol", CallLogFilter(group: "g2")) == [])
    }

    @Test func filtersCombine() throws {
        #expect(try ids("alice", CallLogFilter(callType: .video, direction: .outgoing)) == [7, 3])
        #expect(try ids("alice", CallLogFilter(category: .call, status: .ended, withUser: "bob", group: "g1")) == [3])
    }

    @Test func aSessionShowsOnlyToItsParticipants() throws {
        try withStore { store, _ in
            try store.apply(TestCalls.writes(Self.calls + [TestCalls.meeting(9, session: "room", members: ["erin"])]))
            #expect(try store.calls(sessionId: "room", visibleTo: "alice").map(\.id) == [4])
            #expect(try store.calls(sessionId: "room", visibleTo: "erin").map(\.id) == [9])
            #expect(try store.calls(sessionId: "s5", visibleTo: "alice").isEmpty)
            #expect(try store.calls(sessionId: "s5", visibleTo: "dave").map(\.id) == [5])
        }
    }
}
