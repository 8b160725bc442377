import CallGateCore
import CallGateProtocol
import Testing

@Suite struct RetentionTests {
    @Test func finishedCallsAreForgottenAfterRetention() throws {
        let f = Fixture()
        let a = f.connect("alice")
        let b = f.connect("bob")
        let ringing = try #require(f.call("bob", from: a).call)
        _ = f.reject(ringing.sessionId, .rejected, from: b)
        #expect(f.core.nextDeadline == Fixture.start + 300_000)
        f.advance(millis: 299_999)
        _ = f.fireDueTimers()
        #expect(f.accept(ringing.sessionId, from: b).errorCode == .callRejected)
        f.advance(millis: 1)
        #expect(f.fireDueTimers().isEmpty)
        #expect(f.accept(ringing.sessionId, from: b).errorCode == .callNotFound)
        #expect(f.core.nextDeadline == nil)
    }

    @Test func busyCallsAreRememberedToo() throws {
        let f = Fixture(CoreConfiguration(terminalRetention: .seconds(5)))
        let a = f.connect("alice")
        let b = f.connect("bob")
        let c = f.connect("carol")
        let first = try #require(f.call("bob", from: a).call)
        _ = f.accept(first.sessionId, from: b)
        let busy = try #require(f.call("bob", from: c).call)
        #expect(f.end(busy.sessionId, from: c).errorCode == .callRejected)
        f.advance(seconds: 5)
        _ = f.fireDueTimers()
        #expect(f.end(busy.sessionId, from: c).errorCode == .callNotFound)
    }
}
