@testable import CallGateCore
import CallGateProtocol
import Testing

@Suite struct InitiateCallTests {
    let alice = Fixture.user("alice")
    let bob = Fixture.user("bob")

    @Test func ringsEveryDeviceOfTheCalleeAndNoneOfTheCaller() throws {
        let f = Fixture()
        let a = f.devices("alice", 2)
        let b = f.devices("bob", 3)
        let outcome = f.call("bob", from: a[0], callType: .video, metadata: ["room": .string("r/1")])

        let call = try #require(outcome.call)
        #expect(call == Call(
            sessionId: "s1", callType: .video, receiverType: .user, callCategory: .call, callStatus: .initiated,
            initiator: alice, receiver: .user(bob), initiatedAt: 1_700_000_000,
            metadata: ["room": .string("r/1")], callUUID: CallUUID.of(sessionId: "s1"), ringExpiresAt: 1_700_000_045))
        #expect(outcome.deliveries == [delivery(.incomingCallReceived(call: call), b)])
        #expect(f.core.activeCallCount == 1)
    }

    @Test func anOfflineCalleeIsNamedByUidAndNothingIsDelivered() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let outcome = f.call("zed", from: a)
        let call = try #require(outcome.call)
        #expect(call.receiver == .user(User(uid: "zed", name: "zed")))
        #expect(outcome.deliveries.isEmpty)
    }

    @Test func aCalleeWhoConnectsLaterSeesTheCallAndGetsItsCancel() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let call = try #require(f.call("bob", from: a).call)
        let b = ConnectionID(99)
        #expect(f.connect(b, user: bob) == [call])
        let cancel = f.reject(call.sessionId, .cancelled, from: a)
        let cancelled = try #require(cancel.call)
        #expect(cancel.deliveries == [delivery(.incomingCallCanceled(call: cancelled, reason: .cancelled), [b])])
    }

    @Test func theReceiverTakesTheProfileOfTheDeviceThatAnswers() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let placeholder = try #require(f.call("bob", from: a).call)
        #expect(placeholder.receiver == .user(User(uid: "bob", name: "bob")))
        let b = f.connect("bob")
        let accepted = try #require(f.accept(placeholder.sessionId, from: b).call)
        #expect(accepted.receiver == .user(bob))
    }

    @Test func theReceiverTakesTheProfileOfTheDeviceThatDeclines() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let placeholder = try #require(f.call("bob", from: a).call)
        let b = f.connect("bob")
        let declined = f.reject(placeholder.sessionId, .busy, from: b)
        let call = try #require(declined.call)
        #expect(call.receiver == .user(bob))
        #expect(declined.deliveries == [delivery(.outgoingCallRejected(call: call, by: bob), [a])])
    }

    @Test func beforeConnectEveryOpIsNotLoggedIn() {
        let f = Fixture()
        let stranger = ConnectionID(7)
        #expect(f.call("bob", from: stranger).errorCode == .userNotLoggedIn)
        #expect(f.accept("s1", from: stranger).errorCode == .userNotLoggedIn)
        #expect(f.reject("s1", .rejected, from: stranger).errorCode == .userNotLoggedIn)
        #expect(f.end("s1", from: stranger).errorCode == .userNotLoggedIn)
        #expect(f.call("bob", from: stranger).deliveries.isEmpty)
    }

    @Test(arguments: [
        ("", nil, ErrorCode.badRequest, "data.receiverId: must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"),
        (String(repeating: "b", count: 101), nil, .badRequest, "data.receiverId: must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"),
        ("bob", 0, .badRequest, "data.timeout: expected 1 to 300 seconds"),
        ("bob", 301, .badRequest, "data.timeout: expected 1 to 300 seconds"),
        ("", 0, .badRequest, "data.receiverId: must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"),
        ("alice", 0, .badRequest, "data.timeout: expected 1 to 300 seconds"),
        ("alice", nil, .callingSelf, "you cannot call yourself"),
    ])
    func validationInOrder(receiver: String, timeout: Int?, code: ErrorCode, message: String) {
        let f = Fixture()
        let a = f.connect("alice")
        let outcome = f.call(receiver, from: a, timeout: timeout)
        #expect(outcome.reply == .failure(CoreError(code: code, message: message)))
        #expect(outcome.deliveries.isEmpty)
        #expect(f.core.activeCallCount == 0)
    }

    @Test(arguments: [1, 300])
    func timeoutBoundsAreAllowed(timeout: Int) {
        let f = Fixture()
        let a = f.connect("alice")
        f.connect("bob")
        #expect(f.call("bob", from: a, timeout: timeout).call?.callStatus == .initiated)
        #expect(f.core.nextDeadline == Fixture.start + Int64(timeout) * 1000)
    }

    @Test func metadataIsCappedAsCompactJSON() {
        let f = Fixture()
        let a = f.connect("alice")
        // {"k":"…"} is 8 bytes plus the string.
        let fits: [String: JSONValue] = ["k": .string(String(repeating: "x", count: 4088))]
        let tooBig: [String: JSONValue] = ["k": .string(String(repeating: "x", count: 4089))]
        let refused = f.call("bob", from: a, metadata: tooBig)
        #expect(refused.errorCode == .badRequest)
        #expect(refused.reply == .failure(CoreError(
            code: .badRequest, message: "data.metadata: larger than 4096 bytes of JSON")))
        #expect(f.call("bob", from: a, metadata: fits).call?.metadata == fits)
    }

    @Test func metadataIsCheckedBeforeCallingSelf() {
        let f = Fixture()
        let a = f.connect("alice")
        let tooBig: [String: JSONValue] = ["k": .string(String(repeating: "x", count: 5000))]
        #expect(f.call("alice", from: a, metadata: tooBig).errorCode == .badRequest)
    }

    @Test func callingSelfIsCheckedBeforeCallInProgress() {
        let f = Fixture()
        let a = f.connect("alice")
        _ = f.call("bob", from: a)
        #expect(f.call("alice", from: a).errorCode == .callingSelf)
    }

    @Test func aRingingCallerIsInProgress() {
        let f = Fixture()
        let a = f.devices("alice", 2)
        _ = f.call("bob", from: a[0])
        let second = f.call("carol", from: a[1])
        #expect(second.reply == .failure(CoreError(
            code: .callInProgress, message: "you are already ringing someone or in a call")))
        #expect(f.core.activeCallCount == 1)
    }

    @Test func aParticipantOfAnOngoingCallIsInProgressAsCallerAndCallee() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let call = try #require(f.call("bob", from: a).call)
        _ = f.accept(call.sessionId, from: b)
        #expect(f.call("carol", from: a).errorCode == .callInProgress)
        #expect(f.call("carol", from: b).errorCode == .callInProgress)
    }

    @Test func anIncomingCallDoesNotBlockCalling() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        _ = try #require(f.call("alice", from: b).call)
        #expect(f.call("carol", from: a).call?.callStatus == .initiated)
        #expect(f.core.activeCallCount == 2)
    }

    @Test func theUserCanCallAgainOnceACallFinished() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let first = try #require(f.call("bob", from: a).call)
        _ = f.end(first.sessionId, from: a)
        #expect(f.call("bob", from: a).call?.sessionId == "s2")
    }

    @Test func collidingSessionIDsAreDrawnAgain() throws {
        let f = Fixture(sessionIDs: ["dup", "dup", "live", "dup", "live", "fresh"])
        let a = f.connect("alice")
        let c = f.connect("carol")
        let first = try #require(f.call("bob", from: a).call)
        _ = f.reject(first.sessionId, .cancelled, from: a)
        #expect(first.sessionId == "dup")
        #expect(f.call("bob", from: a).call?.sessionId == "live")
        #expect(f.call("dave", from: c).call?.sessionId == "fresh")
        #expect(f.sessionIDs.drawn == 6)
    }

    @Test func randomSessionIDsAreUnguessableAndWellFormed() {
        let generator = RandomSessionIDGenerator()
        let ids = (0..<100).map { _ in generator.makeSessionID() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(id.hasPrefix("v1."))
            #expect(id.count == 35)
            #expect(id.dropFirst(3).allSatisfy { "0123456789abcdef".contains($0) })
            #expect(SessionIDFormat.isValid(id))
        }
    }

    @Test func theDefaultRingTimeoutIsFortyFiveSeconds() {
        let f = Fixture()
        let a = f.connect("alice")
        f.connect("bob")
        _ = f.call("bob", from: a)
        #expect(f.core.nextDeadline == Fixture.start + 45_000)
    }
}
