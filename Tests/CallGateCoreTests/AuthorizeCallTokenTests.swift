import CallGateCore
import CallGateProtocol
import Testing

/// Who may get a call token for which session id.
@Suite struct AuthorizeCallTokenTests {
    let f = Fixture()
    let a: ConnectionID
    let b: ConnectionID
    let c: ConnectionID
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")
    let carol = Fixture.user("carol")

    init() {
        a = f.connect("alice")
        b = f.connect("bob")
        c = f.connect("carol")
    }

    @Test func theCallerAndTheCalleeOfARingingCallGetOneOthersDoNot() throws {
        let call = try #require(f.call("bob", from: a).call)
        #expect(f.authorize(call.sessionId, from: a) == .success(alice))
        #expect(f.authorize(call.sessionId, from: b) == .success(bob))
        #expect(f.authorize(call.sessionId, from: c) == .failure(CoreError(
            code: .notParticipant, message: "you are not in this call")))
        _ = f.accept(call.sessionId, from: b)
        #expect(f.authorize(call.sessionId, from: b) == .success(bob))
        #expect(f.authorize(call.sessionId, from: c).errorCode == .notParticipant)
    }

    @Test func groupMembersRungGetOne() throws {
        f.group("team", ["alice", "bob", "carol"])
        let d = f.connect("dave")
        let call = try #require(f.call("team", from: a, type: .group).call)
        #expect(f.authorize(call.sessionId, from: b) == .success(bob))
        _ = f.reject(call.sessionId, .rejected, from: c)
        #expect(f.authorize(call.sessionId, from: c) == .success(carol))
        #expect(f.authorize(call.sessionId, from: d).errorCode == .notParticipant)
    }

    @Test func finishedCallsAnswerWithTheirTerminalError() throws {
        let cancelled = try #require(f.call("bob", from: a).call)
        _ = f.end(cancelled.sessionId, from: a)
        let rejected = try #require(f.call("bob", from: a).call)
        _ = f.reject(rejected.sessionId, .rejected, from: b)
        let ended = try #require(f.call("bob", from: a).call)
        _ = f.accept(ended.sessionId, from: b)
        _ = f.end(ended.sessionId, from: b)
        #expect(f.authorize(cancelled.sessionId, from: a).errorCode == .callCancelled)
        #expect(f.authorize(rejected.sessionId, from: b).errorCode == .callRejected)
        #expect(f.authorize(ended.sessionId, from: c).errorCode == .callEnded)
    }

    @Test func unknownIdsAndLiveMeetsAreOpenToAnyone() throws {
        #expect(f.authorize("room:1", from: a) == .success(alice))
        _ = try #require(f.join("room:1", from: a).session)
        #expect(f.authorize("room:1", from: c) == .success(carol))
    }

    @Test func itCreatesNoState() {
        for index in 0..<100 {
            #expect(f.authorize("room-\(index)", from: a) == .success(alice))
        }
        #expect(f.core.activeSessionCount == 0)
        #expect(f.core.activeCallCount == 0)
        #expect(f.core.nextDeadline == nil)
        #expect(f.core.sessionHistory("room-1") == nil)
    }

    @Test(arguments: ["", String(repeating: "x", count: 129), "bad id", "a/b", "ünï"])
    func malformedIdsAreInvalid(sessionId: String) {
        #expect(f.authorize(sessionId, from: a) == .failure(CoreError(
            code: .invalidSessionID, message: "sessionId must be 1 to 128 characters of A-Z a-z 0-9 . _ : -")))
    }

    @Test func aConnectionThatIsNotLoggedInGetsNothing() {
        #expect(f.authorize("room:1", from: ConnectionID(999)).errorCode == .userNotLoggedIn)
        #expect(f.authorize("bad id", from: ConnectionID(999)).errorCode == .userNotLoggedIn)
    }
}
