import Testing

@testable import CallGateBench

@Suite struct FrameScannerTests {
    private func scan(_ text: String) -> FrameFields {
        FrameScanner.scan(Array(text.utf8))
    }

    private func text(_ fields: FrameFields, _ range: Range<Int>?) -> String? {
        range.map { String(decoding: fields.bytes[$0], as: UTF8.self) }
    }

    @Test func successReplyHasIdResultAndTheCallsSessionId() {
        let fields = scan(#"{"id":"i","result":{"callStatus":"initiated","initiator":{"name":"u0","uid":"u0"},"sessionId":"abc.1"}}"#)
        #expect(fields.isReadable)
        #expect(fields.hasResult)
        #expect(fields.idPrefix == RequestKind.initiate.rawValue)
        #expect(text(fields, fields.sessionId) == "abc.1")
        #expect(fields.event == nil)
        #expect(fields.errorCode == nil)
    }

    @Test func errorReplyHasItsCode() {
        let fields = scan(#"{"error":{"code":"ERR_GROUP_NOT_FOUND","message":"no \"such\" group"},"id":"i"}"#)
        #expect(fields.isReadable)
        #expect(!fields.hasResult)
        #expect(fields.errorCodeText == "ERR_GROUP_NOT_FOUND")
        #expect(text(fields, fields.id) == "i")
    }

    @Test func pushNamesItsEventAndFindsTheNestedSessionId() {
        let fields = scan(#"{"data":{"call":{"receiver":{"guid":"g","membersCount":3,"name":"G"},"sessionId":"s-9"}},"event":"onIncomingCallReceived"}"#)
        #expect(fields.isReadable)
        #expect(PushKind(fields) == .incomingCallReceived)
        #expect(text(fields, fields.sessionId) == "s-9")
        #expect(fields.id == nil)
    }

    @Test func keyOrderDoesNotMatter() {
        let fields = scan(#" { "event" : "onIncomingCallCanceled" , "data" : { "reason" : "cancelled", "call" : { "sessionId" : "x" } } } "#)
        #expect(fields.isReadable)
        #expect(PushKind(fields) == .incomingCallCanceled)
        #expect(text(fields, fields.sessionId) == "x")
    }

    @Test func onlyTopLevelIdAndEventCount() {
        let fields = scan(#"{"data":{"call":{"metadata":{"event":"fake","id":"c"},"sessionId":"s"}},"event":"onCallEndedMessageReceived"}"#)
        #expect(PushKind(fields) == .callEndedMessageReceived)
        #expect(fields.id == nil)
    }

    @Test func arraysNumbersAndLiteralsAreSkipped() {
        let fields = scan(#"{"data":{"participants":[{"uid":"a","joinedAt":12,"audioMuted":false},{"uid":"b"}],"sessionId":"m","n":null,"f":-1.5e3},"event":"onUserListChanged"}"#)
        #expect(fields.isReadable)
        #expect(PushKind(fields) == .other)
        #expect(text(fields, fields.sessionId) == "m")
    }

    @Test(arguments: ["", "not json", #"{"id":"i""#, #"{"id":"i",}"#, #"{"id" "i"}"#, #"{"a":[1,2}"#, #"{"id":"i"} x"#])
    func brokenFramesAreNotReadable(_ frame: String) {
        #expect(!scan(frame).isReadable)
    }
}
