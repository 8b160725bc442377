import CallGateCore
import CallGateProtocol
import Testing

/// The in-memory call log store: a row is visible only to the users in it, every filter works
/// alone and together, a row saved again replaces itself, and a recording URL goes to the newest
/// call under a session id only, and stays through later saves of that call.
@Suite struct InMemoryCallLogStoreTests {
    let store = InMemoryCallLogStore()
    let team = CallReceiver.group(Group(guid: "team", name: "Team", membersCount: 3))

    /// 1 alice->bob ended; 2 alice->bob unanswered video; 3 bob->alice with a recording;
    /// 4 carol->dave; 5 alice->team (bob joined, carol missed); 6 meeting room:1 (alice, erin)
    /// with two recordings; 7 meeting room:1 again (erin), ongoing, one recording.
    let rows: [CallLogRecord]

    init() throws {
        let five = CallLogRecord(
            id: 5, sessionId: "s5", callCategory: .call, callType: .audio, callStatus: .ended,
            initiator: Fixture.user("alice"), receiver: team, initiatedAt: 500, startedAt: 505, endedAt: 565,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: 505, leftAt: 565, closed: 60),
                Fixture.entry("bob", .joined, joinedAt: 505, leftAt: 565, closed: 60),
                Fixture.entry("carol", .missed),
            ])
        let six = CallLogRecord(
            id: 6, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ended,
            initiator: Fixture.user("alice"), receiver: nil, initiatedAt: 600, startedAt: 600, endedAt: 660,
            participants: [
                Fixture.entry("alice", .joined, joinedAt: 600, leftAt: 660, closed: 60),
                Fixture.entry("erin", .joined, joinedAt: 610, leftAt: 650, closed: 40),
            ],
            recordings: [
                CallLogRecording(rid: "room:1-r1", startedAt: 610, endedAt: 620, duration: 10),
                CallLogRecording(rid: "room:1-r2", startedAt: 630, endedAt: 640, duration: 10),
            ])
        let seven = CallLogRecord(
            id: 7, sessionId: "room:1", callCategory: .meet, callType: .video, callStatus: .ongoing,
            initiator: Fixture.user("erin"), receiver: nil, initiatedAt: 700, startedAt: 700,
            participants: [Fixture.entry("erin", .joined, joinedAt: 700, stay: 700)],
            recordings: [CallLogRecording(rid: "room:1-r1", startedAt: 705, endedAt: 706, duration: 1)])
        rows = [
            .sample(1),
            .sample(2, status: .unanswered, callType: .video),
            .sample(3, from: "bob", to: "alice", recordings: [
                CallLogRecording(rid: "s3-r1", startedAt: 310, endedAt: 320, duration: 10),
            ]),
            .sample(4, from: "carol", to: "dave"),
            five, six, seven,
        ]
        try store.apply(rows.map(StoreWrite.call))
    }

    private func ids(_ viewer: String, _ filter: CallLogFilter = .init()) throws -> [Int64] {
        try store.page(CallLogQuery(viewer: viewer, filter: filter, perPage: 100)).records.map(\.id)
    }

    @Test func aUserSeesOnlyTheCallsTheyWerePartOf() throws {
        #expect(try ids("alice") == [6, 5, 3, 2, 1])
        #expect(try ids("bob") == [5, 3, 2, 1])
        #expect(try ids("carol") == [5, 4])
        #expect(try ids("erin") == [7, 6])
        #expect(try ids("frank") == [])
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin").map(\.id) == [7, 6])
        #expect(try store.calls(sessionId: "room:1", visibleTo: "alice").map(\.id) == [6])
        #expect(try store.calls(sessionId: "room:1", visibleTo: "bob") == [])
        #expect(try store.calls(sessionId: "s1", visibleTo: "alice") == [rows[0]])
    }

    @Test func eachFilterNarrowsTheList() throws {
        #expect(try ids("alice", .init(category: .meet)) == [6])
        #expect(try ids("alice", .init(category: .call)) == [5, 3, 2, 1])
        #expect(try ids("alice", .init(callType: .video)) == [6, 2])
        #expect(try ids("alice", .init(status: .unanswered)) == [2])
        #expect(try ids("alice", .init(direction: .incoming)) == [3])
        #expect(try ids("alice", .init(direction: .outgoing)) == [6, 5, 2, 1])
        #expect(try ids("erin", .init(direction: .incoming)) == [6])
        #expect(try ids("alice", .init(hasRecording: true)) == [6, 3])
        #expect(try ids("alice", .init(withUser: "carol")) == [5])
        #expect(try ids("alice", .init(withUser: "erin")) == [6])
        #expect(try ids("alice", .init(withUser: "frank")) == [])
        #expect(try ids("bob", .init(group: "team")) == [5])
        #expect(try ids("bob", .init(group: "other")) == [])
        #expect(try ids("alice", .init(category: .call, status: .ended, withUser: "bob")) == [5, 3, 1])
    }

    @Test func pagesComeFromTheViewersMatchingCalls() throws {
        let page = try store.page(CallLogQuery(viewer: "alice", filter: .init(category: .call), perPage: 2))
        #expect(page == CallLogPage(
            records: [rows[4], rows[2]], total: 4, currentPage: 1, next: .olderThan(3), previous: nil))
        let next = try store.page(CallLogQuery(
            viewer: "alice", filter: .init(category: .call), perPage: 2, position: .cursor(.olderThan(3))))
        #expect(next.records.map(\.id) == [2, 1])
        #expect(next.next == nil)
    }

    @Test func aRowSavedAgainReplacesItself() throws {
        var later = rows[6]
        later.callStatus = .ended
        later.endedAt = 760
        try store.apply([.call(later)])
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin") == [later, rows[5]])
        #expect(try store.openCalls() == [])
        #expect(try store.lastCallID() == 7)
    }

    @Test func openCallsAndTheLastIdAreWhatARestartNeeds() throws {
        #expect(try store.openCalls() == [rows[6]])
        #expect(try store.lastCallID() == 7)
        #expect(try InMemoryCallLogStore().lastCallID() == 0)
        #expect(try InMemoryCallLogStore().openCalls() == [])
    }

    @Test func aRecordingURLGoesToTheOneCallThatHasTheRecording() throws {
        // room:1-r1 is in both meetings under room:1: ambiguous until its startedAt picks one.
        #expect(try store.attachRecordingURL("https://rec/1", sessionId: "room:1", rid: "room:1-r1", startedAt: nil) == .ambiguous)
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin") == [rows[6], rows[5]])
        #expect(try store.attachRecordingURL("https://rec/1", sessionId: "room:1", rid: "room:1-r1", startedAt: 705) == .attached)
        var withURL = rows[6]
        withURL.recordings[0].recordingUrl = "https://rec/1"
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin") == [withURL, rows[5]])
        #expect(try store.openCalls() == [withURL])
        #expect(try store.page(CallLogQuery(viewer: "erin")).records == [withURL, rows[5]])
        // room:1-r2 is in the older meeting only: it goes there, not to the newer one.
        #expect(try store.attachRecordingURL("https://rec/2", sessionId: "room:1", rid: "room:1-r2", startedAt: nil) == .attached)
        var older = rows[5]
        older.recordings[1].recordingUrl = "https://rec/2"
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin") == [withURL, older])
    }

    @Test func aRecordingURLForAnUnknownRecordingIsRefused() throws {
        #expect(try store.attachRecordingURL("https://rec/9", sessionId: "room:1", rid: "room:1-r9", startedAt: nil) == .notFound)
        #expect(try store.attachRecordingURL("https://rec/9", sessionId: "room:1", rid: "room:1-r1", startedAt: 999) == .notFound)
        #expect(try store.attachRecordingURL("https://rec/9", sessionId: "s1", rid: "s1-r1", startedAt: nil) == .notFound)
        #expect(try store.attachRecordingURL("https://rec/9", sessionId: "nope", rid: "nope-r1", startedAt: nil) == .notFound)
        #expect(try store.calls(sessionId: "room:1", visibleTo: "erin") == [rows[6], rows[5]])
    }

    @Test func aRecordingURLSurvivesLaterSavesOfTheCall() throws {
        #expect(try store.attachRecordingURL("https://rec/3", sessionId: "s3", rid: "s3-r1", startedAt: nil) == .attached)
        var resaved = rows[2]
        resaved.metadata = ["note": .string("saved again")]
        try store.apply([.call(resaved)])
        resaved.recordings[0].recordingUrl = "https://rec/3"
        #expect(try store.calls(sessionId: "s3", visibleTo: "bob") == [resaved])
        #expect(try store.page(CallLogQuery(viewer: "alice", filter: .init(hasRecording: true))).records
            == [rows[5], resaved])
    }

    @Test func groupsArePutAndDeleted() throws {
        let team = GroupRecord(guid: "team", name: "Team", members: ["alice", "bob"])
        let band = GroupRecord(guid: "band", name: "Band", members: ["carol"])
        try store.apply([.putGroup(team), .putGroup(band), .deleteGroup("nope")])
        #expect(try store.groups() == [band, team])
        try store.apply([.deleteGroup("band")])
        #expect(try store.groups() == [team])
    }
}
