import CallGateCore
import CallGateProtocol
import Testing

/// joinSession: alice (2 devices), bob (2 devices), carol (1 device).
@Suite struct JoinSessionTests {
    let f = Fixture()
    let a: [ConnectionID]
    let b: [ConnectionID]
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let t0 = Fixture.t0

    init() {
        a = f.devices("alice", 2)
        b = f.devices("bob", 2)
        c = f.connect("carol")
    }

    @Test(arguments: [true, false])
    func anUnknownIdStartsAStandaloneSession(audioOnly: Bool) throws {
        let outcome = f.join("room:1", from: a[0], audioOnly: audioOnly)
        #expect(outcome.reply == .success(Session(
            sessionId: "room:1", callCategory: .meet, callType: audioOnly ? .audio : .video,
            participants: [Fixture.participant("alice", joinedAt: t0)], recording: false, startedAt: t0)))
        #expect(outcome.deliveries == [
            delivery(.userJoined(sessionId: "room:1", user: alice), [a[1]]),
            delivery(.userListChanged(sessionId: "room:1", participants: [Fixture.participant("alice", joinedAt: t0)]),
                     [a[1]]),
        ])
        #expect(f.core.activeSessionCount == 1)
        #expect(f.core.activeCallCount == 0)
    }

    @Test func aNewParticipantIsAnnouncedToEveryDeviceOfEveryone() throws {
        _ = f.join("room:1", from: a[0])
        f.advance(seconds: 5)
        let outcome = f.join("room:1", from: b[1], audioOnly: true)
        let participants = [
            Fixture.participant("alice", joinedAt: t0), Fixture.participant("bob", joinedAt: t0 + 5),
        ]
        let session = try #require(outcome.session)
        #expect(session.participants == participants)
        #expect(session.callType == .video)
        #expect(session.startedAt == t0)
        #expect(outcome.deliveries == [
            delivery(.userJoined(sessionId: "room:1", user: bob), [a[0], a[1], b[0]]),
            delivery(.userListChanged(sessionId: "room:1", participants: participants), [a[0], a[1], b[0]]),
        ])
    }

    @Test func aSecondDeviceOfAParticipantJoinsQuietly() throws {
        _ = f.join("room:1", from: a[0])
        _ = f.join("room:1", from: b[0])
        f.advance(seconds: 9)
        let outcome = f.join("room:1", from: a[1])
        #expect(outcome.deliveries.isEmpty)
        #expect(outcome.session?.participants == [
            Fixture.participant("alice", joinedAt: t0), Fixture.participant("bob", joinedAt: t0),
        ])
    }

    @Test func theSameDeviceCannotJoinTwice() throws {
        _ = f.join("room:1", from: a[0])
        #expect(f.join("room:1", from: a[0]).reply == .failure(CoreError(
            code: .callAlreadyJoined, message: "this device already joined this session")))
        #expect(f.core.sessionHistory("room:1")?.participants.count == 1)
    }

    @Test func aCalleeJoinsOnlyAfterAccepting() throws {
        let ringing = try #require(f.call("bob", from: a[0], callType: .video).call)
        #expect(f.join(ringing.sessionId, from: b[0]).reply == .failure(CoreError(
            code: .notParticipant, message: "accept the call first")))
        #expect(f.core.activeSessionCount == 0)
        f.advance(seconds: 2)
        _ = f.accept(ringing.sessionId, from: b[0])
        f.advance(seconds: 1)
        let bobJoins = f.join(ringing.sessionId, from: b[0], audioOnly: true)
        #expect(bobJoins.reply == .success(Session(
            sessionId: ringing.sessionId, callCategory: .call, callType: .video,
            participants: [Fixture.participant("bob", joinedAt: t0 + 3)], recording: false, startedAt: t0 + 3)))
        #expect(bobJoins.deliveries == [
            delivery(.userJoined(sessionId: ringing.sessionId, user: bob), [b[1]]),
            delivery(.userListChanged(sessionId: ringing.sessionId,
                                      participants: [Fixture.participant("bob", joinedAt: t0 + 3)]), [b[1]]),
        ])
        f.advance(seconds: 1)
        let aliceJoins = f.join(ringing.sessionId, from: a[1])
        let participants = [
            Fixture.participant("bob", joinedAt: t0 + 3), Fixture.participant("alice", joinedAt: t0 + 4),
        ]
        #expect(aliceJoins.session?.participants == participants)
        #expect(aliceJoins.deliveries == [
            delivery(.userJoined(sessionId: ringing.sessionId, user: alice), [b[0], b[1], a[0]]),
            delivery(.userListChanged(sessionId: ringing.sessionId, participants: participants), [b[0], b[1], a[0]]),
        ])
    }

    @Test func theCallerMayJoinWhileItRings() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        let outcome = f.join(ringing.sessionId, from: a[0])
        #expect(outcome.session?.callCategory == .call)
        #expect(outcome.session?.callType == .audio)
        #expect(outcome.session?.participants == [Fixture.participant("alice", joinedAt: t0)])
    }

    @Test func strangersAndFinishedCallsAreRefused() throws {
        let ringing = try #require(f.call("bob", from: a[0]).call)
        #expect(f.join(ringing.sessionId, from: c).reply == .failure(CoreError(
            code: .notParticipant, message: "you are not in this call")))
        _ = f.reject(ringing.sessionId, .rejected, from: b[0])
        #expect(f.join(ringing.sessionId, from: a[0]).errorCode == .callRejected)
        let ended = try #require(f.call("bob", from: a[0]).call)
        _ = f.accept(ended.sessionId, from: b[0])
        _ = f.end(ended.sessionId, from: a[0])
        #expect(f.join(ended.sessionId, from: b[0]).errorCode == .callEnded)
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func groupMembersWhoDeclinedOrLeftCannotJoin() throws {
        f.group("team", ["alice", "bob", "carol", "dave"])
        let d = f.connect("dave")
        let call = try #require(f.call("team", from: a[0], type: .group).call)
        _ = f.reject(call.sessionId, .rejected, from: c)
        _ = f.accept(call.sessionId, from: b[0])
        _ = f.accept(call.sessionId, from: d)
        _ = f.end(call.sessionId, from: d)
        #expect(f.join(call.sessionId, from: c).errorCode == .callRejected)
        #expect(f.join(call.sessionId, from: d).errorCode == .callEnded)
        #expect(f.join(call.sessionId, from: b[0]).session?.callCategory == .call)
    }

    @Test(arguments: [0, -5, 86_401])
    func idleTimeoutsOutOfRangeAreBadRequests(idleTimeout: Int) {
        #expect(f.join("room:1", from: a[0], idleTimeout: idleTimeout).reply == .failure(CoreError(
            code: .badRequest, message: "data.idleTimeout: expected 1 to 86400 seconds")))
        #expect(f.join("bad id", from: a[0], idleTimeout: idleTimeout).errorCode == .badRequest)
        #expect(f.core.activeSessionCount == 0)
    }

    @Test func theAllowedIdleTimeoutsAreConfigurable() {
        let g = Fixture(CoreConfiguration(allowedIdleTimeouts: 5...10))
        let x = g.connect("alice")
        #expect(g.join("room:1", from: x, idleTimeout: 11).reply == .failure(CoreError(
            code: .badRequest, message: "data.idleTimeout: expected 5 to 10 seconds")))
        #expect(g.join("room:1", from: x).errorCode == .badRequest)
        #expect(g.join("room:1", from: x, idleTimeout: 10).session != nil)
    }

    @Test func malformedIdsAndUnknownConnections() {
        #expect(f.join("a b", from: a[0]).errorCode == .invalidSessionID)
        #expect(f.join("room:1", from: ConnectionID(999)).errorCode == .userNotLoggedIn)
    }

    @Test func newCallsNeverTakeTheIdOfALiveSession() throws {
        let g = Fixture(sessionIDs: ["room:1", "room:1"])
        let x = g.connect("alice")
        g.connect("bob")
        _ = g.join("room:1", from: x)
        let call = try #require(g.call("bob", from: x).call)
        #expect(call.sessionId == "s1")
    }
}
