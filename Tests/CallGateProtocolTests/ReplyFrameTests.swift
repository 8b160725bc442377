import CallGateProtocol
import Testing

@Suite struct ReplyFrameTests {
    @Test func successWrapsTheResult() {
        let data = ReplyFrame.success(id: "9", result: PingResult(serverTime: 1_700_000_000_123))
        #expect(JSONText.string(data) == #"{"id":"9","result":{"serverTime":1700000000123}}"#)
    }

    @Test func failureWithAndWithoutID() {
        let withID = ReplyFrame.failure(id: "9", code: .callingSelf, message: "no/way")
        let withoutID = ReplyFrame.failure(id: nil, code: .badRequest, message: "frame is not valid JSON")
        #expect(JSONText.string(withID) == #"{"error":{"code":"ERR_CALLING_SELF","message":"no/way"},"id":"9"}"#)
        #expect(JSONText.string(withoutID)
            == #"{"error":{"code":"ERR_BAD_REQUEST","message":"frame is not valid JSON"}}"#)
    }

    @Test func connectResultRoundTrips() throws {
        let result = ConnectResult(
            user: Samples.alice, connectionId: "42", serverTime: 1_700_000_000_000, activeCalls: [Samples.ringing],
            tokenExpiresAt: 1_700_003_600, epoch: "k3x9-1", seq: 12,
            recovery: Recovery(epoch: "k3x9-1", recovered: true, missed: 2), resumedSessions: [Session(
                sessionId: "s1", callCategory: .meet, callType: .audio, participants: [], recording: false,
                startedAt: 1_700_000_000)])
        let frame = try ServerFrame.decode(ReplyFrame.success(id: "c", result: result))
        guard case .reply("c", let outcome) = frame else {
            Issue.record("expected reply c, got \(frame)")
            return
        }
        #expect(try outcome.decodeResult(ConnectResult.self) == result)
    }

    @Test func failureDecodesAndThrowsItsBody() throws {
        let frame = try ServerFrame.decode(ReplyFrame.failure(id: nil, code: .authError, message: "expired"))
        let body = ErrorBody(code: .authError, message: "expired")
        #expect(frame == .reply(id: nil, outcome: .failure(body)))
        guard case .reply(_, let outcome) = frame else { return }
        #expect(throws: body) {
            try outcome.decodeResult(PingResult.self)
        }
    }

    @Test func framesThatAreNeitherReplyNorPushAreRejected() throws {
        #expect(throws: DecodingError.self) {
            try ServerFrame.decode(JSONText.data(#"{"id":"1"}"#))
        }
        #expect(throws: DecodingError.self) {
            try ServerFrame.decode(JSONText.data("nope"))
        }
    }
}
