import CallGateProtocol
import Testing

@Suite struct SessionCodingTests {
    static let session = Session(
        sessionId: "room:1", callCategory: .meet, callType: .audio,
        participants: [
            Participant(uid: "bob", name: "Bob", joinedAt: 1_700_000_000, audioMuted: false, videoMuted: false),
            Participant(uid: "alice", name: "Alice", avatar: "https://img.example/a.png", joinedAt: 1_700_000_009,
                        audioMuted: true, videoMuted: true),
        ],
        recording: true, startedAt: 1_700_000_000)

    @Test func sessionResultHasTheDocumentedShape() {
        let text = JSONText.string(ReplyFrame.success(id: "j", result: SessionResult(session: Self.session)))
        #expect(text == #"{"id":"j","result":{"session":{"callCategory":"meet","callType":"audio","participants":["#
            + #"{"audioMuted":false,"joinedAt":1700000000,"name":"Bob","uid":"bob","videoMuted":false},"#
            + #"{"audioMuted":true,"avatar":"https://img.example/a.png","joinedAt":1700000009,"name":"Alice","#
            + #""uid":"alice","videoMuted":true}],"recording":true,"sessionId":"room:1","startedAt":1700000000}}}"#)
    }

    @Test func resultsRoundTrip() throws {
        guard case .reply("j", let outcome) = try ServerFrame.decode(
            ReplyFrame.success(id: "j", result: SessionResult(session: Self.session)))
        else {
            Issue.record("expected reply j")
            return
        }
        #expect(try outcome.decodeResult(SessionResult.self) == SessionResult(session: Self.session))

        let token = GenerateTokenResult(callToken: "a.b.c", sessionId: "v1.ab", expiresAt: 1_700_000_600)
        let frame = ReplyFrame.success(id: "g", result: token)
        #expect(JSONText.string(frame)
            == #"{"id":"g","result":{"callToken":"a.b.c","expiresAt":1700000600,"sessionId":"v1.ab"}}"#)
        guard case .reply("g", let tokenOutcome) = try ServerFrame.decode(frame) else {
            Issue.record("expected reply g")
            return
        }
        #expect(try tokenOutcome.decodeResult(GenerateTokenResult.self) == token)
    }
}
