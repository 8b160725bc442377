@testable import CallGateCore
import CallGateProtocol
import Testing

/// The per-user and per-session caps: meet sessions a user is in, calls a user starts per
/// minute, recordings per session, the mute history kept, and metadata nesting.
@Suite struct ResourceCapTests {
    @Test func aUserIsInAtMostTheConfiguredNumberOfMeetSessions() throws {
        let f = Fixture(CoreConfiguration(maxMeetSessionsPerUser: 2))
        let a = f.connect("alice")
        let b = f.connect("bob")
        #expect(f.join("m1", from: a).errorCode == nil)
        #expect(f.join("m2", from: a).errorCode == nil)
        #expect(f.join("m3", from: a).errorCode == .tooManySessions)
        #expect(f.core.activeSessionCount == 2, "a refused join starts no session")
        _ = f.join("m3", from: b)
        #expect(f.join("m3", from: a).errorCode == .tooManySessions, "joining someone else's session counts too")
        _ = f.leave("m1", from: a)
        #expect(f.join("m3", from: a).errorCode == nil)
        let second = f.connect("alice")
        #expect(f.join("m2", from: second).errorCode == nil, "another device of a member joins freely")
    }

    @Test func callStartsPerMinuteAreCappedPerUser() throws {
        let f = Fixture(CoreConfiguration(maxCallsPerMinute: 3))
        let a = f.connect("alice")
        let c = f.connect("carol")
        for _ in 0..<3 {
            let call = try #require(f.call("bob", from: a).call)
            _ = f.reject(call.sessionId, .cancelled, from: a)
        }
        let refused = f.call("bob", from: a)
        #expect(refused.errorCode == .rateLimited)
        #expect(refused.deliveries.isEmpty)
        #expect(f.call("bob", from: c).errorCode == nil, "the budget is per user")
        f.advance(seconds: 60)
        #expect(f.call("bob", from: a).errorCode == nil, "a new minute, a new budget")
    }

    @Test func aNewMeetingIsACallStartAndJoiningOneIsNot() throws {
        let f = Fixture(CoreConfiguration(maxCallsPerMinute: 2))
        let a = f.connect("alice")
        let b = f.connect("bob")
        #expect(f.join("m1", from: a).errorCode == nil)
        #expect(f.call("bob", from: a).errorCode == nil)
        let refused = f.join("m2", from: a)
        #expect(refused.errorCode == .rateLimited, "two starts this minute: a call and a meeting")
        #expect(f.core.sessionHistory("m2") == nil && refused.deliveries.isEmpty, "no meeting was made")
        #expect(f.join("m1", from: b).errorCode == nil, "joining someone else's meeting starts nothing")
        f.advance(seconds: 60)
        #expect(f.join("m2", from: a).errorCode == nil)
    }

    @Test func aRefusedCallSpendsNothing() throws {
        let f = Fixture(CoreConfiguration(maxCallsPerMinute: 1))
        let a = f.connect("alice")
        #expect(f.call("alice", from: a).errorCode == .callingSelf)
        #expect(f.call("nobody-group", from: a, type: .group).errorCode == .groupNotFound)
        f.group("alone", ["alice"])
        #expect(f.call("alone", from: a, type: .group).errorCode == .badRequest)
        #expect(f.call("bob", from: a).errorCode == nil)
    }

    @Test func recordingsPerSessionAreCapped() throws {
        let f = Fixture(CoreConfiguration(maxRecordingsPerSession: 2))
        let a = f.connect("alice")
        _ = f.join("room", from: a)
        for _ in 0..<2 {
            #expect(f.record("room", true, from: a).errorCode == nil)
            #expect(f.record("room", false, from: a).errorCode == nil)
        }
        #expect(f.record("room", true, from: a).errorCode == .tooManyRecordings)
        #expect(f.core.sessionHistory("room")?.recordings.count == 2)
    }

    @Test func theMuteHistoryKeepsTheNewestChangesOnly() throws {
        let f = Fixture(CoreConfiguration(maxMuteChangesKept: 3))
        let a = f.connect("alice")
        _ = f.join("room", from: a)
        for index in 0..<10 {
            _ = f.mute("room", audio: index % 2 == 0, from: a)
        }
        let changes = try #require(f.core.sessionHistory("room")?.muteChanges)
        #expect(changes.map(\.audioMuted) == [false, true, false])
    }

    @Test func metadataIsCappedInNesting() throws {
        let f = Fixture(CoreConfiguration(maxMetadataDepth: 2))
        let a = f.connect("alice")
        #expect(f.call("bob", from: a, metadata: ["a": .object(["b": .number(1)])]).errorCode == nil)
        let deep = f.call("carol", from: f.connect("dave"), metadata: ["a": .object(["b": .array([])])])
        guard case .failure(let error) = deep.reply else {
            Issue.record("metadata three levels deep was accepted")
            return
        }
        #expect(error == CoreError(code: .badRequest, message: "data.metadata: nests deeper than 2 levels"))
    }

    @Test func depthCountsArraysAndObjects() {
        #expect(JSONValue.number(1).depth == 0)
        #expect(JSONValue.object([:]).depth == 1)
        #expect(JSONValue.array([.object(["x": .array([])])]).depth == 3)
    }
}
