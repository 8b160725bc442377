import CallGateProtocol
import Testing

/// The reconnect hint in a 1012 close's reason: what the gateway writes, what a client reads,
/// and how it reads a hostile reason.
@Suite struct ReconnectHintTests {
    @Test func theGatewaysHintReadsBack() {
        #expect(ReconnectHint.gateway.reason == #"{"reconnectWithinMs":2000}"#)
        #expect(ReconnectHint(reason: ReconnectHint.gateway.reason) == ReconnectHint.gateway)
        #expect(ReconnectHint(reason: #" { "other": true, "reconnectWithinMs": 0 } "#)?.withinMilliseconds == 0)
        #expect(ReconnectHint(reason: #"{"reconnectWithinMs":60000}"#)?.withinMilliseconds == 60_000)
    }

    @Test(arguments: [
        "", "going away", "{}", "[]", "null", #"{"reconnectWithinMs":"2000"}"#, #"{"reconnectWithinMs":-1}"#,
        #"{"reconnectWithinMs":60001}"#, #"{"reconnectWithinMs":2.5}"#, #"{"reconnectWithinMs":1e300}"#,
        #"{"reconnectWithinMs":{"a":1}}"#, #"{"reconnectWithinMs":2000"#, String(repeating: "[", count: 10_000),
    ])
    func aReasonThatIsNotAHintIsNone(_ reason: String) {
        #expect(ReconnectHint(reason: reason) == nil)
    }

    @Test func delaysStayWithinTheHintAndAnyValueIsClamped() {
        var generator = SystemRandomNumberGenerator()
        let hint = ReconnectHint(withinMilliseconds: 50)
        for _ in 0..<1_000 {
            #expect((0...50).contains(hint.delayMilliseconds(using: &generator)))
        }
        #expect(ReconnectHint(withinMilliseconds: -5).withinMilliseconds == 0)
        #expect(ReconnectHint(withinMilliseconds: .max).withinMilliseconds == ReconnectHint.maxMilliseconds)
        #expect(ReconnectHint(withinMilliseconds: 0).delayMilliseconds(using: &generator) == 0)
    }

    /// libwebsockets 4.1.6 reports a received 1012 as 1002 but keeps the reason.
    @Test func a1002CarryingTheHintWasThe1012() {
        #expect(CloseCode.seen(1002, reason: ReconnectHint.gateway.reason) == CloseCode.serviceRestart)
        #expect(CloseCode.seen(1002, reason: "bad frame") == 1002)
        #expect(CloseCode.seen(1002, reason: nil) == 1002)
        #expect(CloseCode.seen(4001, reason: ReconnectHint.gateway.reason) == 4001)
        #expect(CloseCode.seen(nil, reason: nil) == nil)
    }
}
