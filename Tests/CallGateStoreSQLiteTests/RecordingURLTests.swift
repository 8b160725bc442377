import CallGateCore
import StoreTestSupport
import Testing

@testable import CallGateStoreSQLite

/// Recording URLs attached beside a call: they survive a re-save of the record and show on
/// every read.
struct RecordingURLTests {
    @Test func anAttachedURLSurvivesAResaveAndAReopen() throws {
        try withDatabasePath { path in
            var call = TestCalls.meeting(1, session: "room", members: ["alice", "bob"], status: .ongoing, rids: ["room-r1"])
            do {
                let store = try SQLiteCallLogStore(path: path)
                try store.apply([.call(call)])
                #expect(try store.attachRecordingURL("https://files/r1.mp4", sessionId: "room", rid: "room-r1", startedAt: nil) == .attached)
                call.recordings += TestCalls.recordings(["room-r2"])
                try store.apply([.call(call)])
            }
            let store = try SQLiteCallLogStore(path: path)
            let read = try #require(store.openCalls().first)
            #expect(read.recordings.map(\.recordingUrl) == ["https://files/r1.mp4", nil])
            #expect(try store.calls(sessionId: "room", visibleTo: "bob") == [read])
            let page = try store.page(CallLogQuery(viewer: "alice"))
            #expect(page.records == [read])
        }
    }

    @Test func attachingAgainReplacesTheURL() throws {
        try withStore { store, _ in
            try store.apply([.call(TestCalls.direct(1, from: "alice", to: "bob", rids: ["s1-r1"]))])
            #expect(try store.attachRecordingURL("https://old", sessionId: "s1", rid: "s1-r1", startedAt: nil) == .attached)
            #expect(try store.attachRecordingURL("https://new", sessionId: "s1", rid: "s1-r1", startedAt: nil) == .attached)
            let read = try store.calls(sessionId: "s1", visibleTo: "alice")
            #expect(read.first?.recordings.first?.recordingUrl == "https://new")
        }
    }

    @Test func aURLGoesToTheOneMeetingWithTheRecordingNeverToALaterOne() throws {
        try withStore { store, _ in
            try store.apply(TestCalls.writes([
                TestCalls.meeting(1, session: "room", members: ["alice"], rids: ["room-r1"]),
                TestCalls.meeting(2, session: "room", members: ["alice"], rids: ["room-r2"]),
            ]))
            #expect(try store.attachRecordingURL("https://x", sessionId: "room", rid: "room-r1", startedAt: nil) == .attached)
            #expect(try store.attachRecordingURL("https://x", sessionId: "nowhere", rid: "room-r2", startedAt: nil) == .notFound)
            #expect(try store.attachRecordingURL("https://y", sessionId: "room", rid: "room-r3", startedAt: nil) == .notFound)
            let urls = try store.calls(sessionId: "room", visibleTo: "alice").map { $0.recordings.map(\.recordingUrl) }
            #expect(urls == [[nil], ["https://x"]])
        }
    }

    @Test func aRecordingIdThatSeveralMeetingsHaveNeedsItsStartTime() throws {
        try withStore { store, _ in
            var earlier = TestCalls.meeting(1, session: "room", members: ["alice"], rids: ["room-r1"])
            var later = TestCalls.meeting(2, session: "room", members: ["alice"], rids: ["room-r1"])
            earlier.recordings[0].startedAt = 110
            later.recordings[0].startedAt = 2_000
            try store.apply(TestCalls.writes([earlier, later]))
            #expect(try store.attachRecordingURL("https://x", sessionId: "room", rid: "room-r1", startedAt: nil) == .ambiguous)
            #expect(try store.calls(sessionId: "room", visibleTo: "alice").allSatisfy { $0.recordings[0].recordingUrl == nil })
            #expect(try store.attachRecordingURL("https://old", sessionId: "room", rid: "room-r1", startedAt: 110) == .attached)
            let urls = try store.calls(sessionId: "room", visibleTo: "alice").map { $0.recordings[0].recordingUrl }
            #expect(urls == [nil, "https://old"], "newest first: the later meeting keeps no URL")
            #expect(try store.attachRecordingURL("https://x", sessionId: "room", rid: "room-r1", startedAt: 1) == .notFound)
        }
    }
}
