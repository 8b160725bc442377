import CallGateProtocol
import Foundation
import Testing

@Suite struct RequestFrameTests {
    static let frames: [RequestFrame] = [
        RequestFrame(id: "1", request: .connect(ConnectParams(token: "jwt.token.here"))),
        RequestFrame(id: "2", request: .ping),
        RequestFrame(id: "3", request: .initiateCall(InitiateCallParams(
            receiverId: "bob", receiverType: .user, callType: .video))),
        RequestFrame(id: "4", request: .initiateCall(InitiateCallParams(
            receiverId: "team", receiverType: .group, callType: .audio, timeout: 20,
            metadata: ["room": .string("a/b"), "tags": .array([.number(1), .bool(true), .null])]))),
        RequestFrame(id: "5", request: .acceptCall(SessionParams(sessionId: "v1.ab"))),
        RequestFrame(id: "6", request: .rejectCall(RejectCallParams(sessionId: "v1.ab", status: .busy))),
        RequestFrame(id: "7", request: .endCall(SessionParams(sessionId: "v1.ab"))),
    ]

    @Test(arguments: frames)
    func encodeThenDecodeIsIdentity(frame: RequestFrame) throws {
        #expect(try RequestFrame.decode(frame.encoded()) == frame)
    }

    @Test func encodesTheEnvelope() throws {
        #expect(try JSONText.string(Self.frames[1].encoded()) == #"{"data":{},"id":"2","op":"ping"}"#)
        #expect(try JSONText.string(Self.frames[2].encoded())
            == #"{"data":{"callType":"video","receiverId":"bob","receiverType":"user"},"id":"3","op":"initiateCall"}"#)
    }

    @Test func decodesFromAByteArray() throws {
        let bytes = Array(#"{"id":"p","op":"ping"}"#.utf8)
        #expect(try RequestFrame.decode(bytes) == RequestFrame(id: "p", request: .ping))
    }

    @Test(arguments: [#"{"id":"p","op":"ping"}"#, #"{"id":"p","op":"ping","data":null}"#])
    func missingDataIsAnEmptyObject(text: String) throws {
        #expect(try RequestFrame.decode(JSONText.data(text)) == RequestFrame(id: "p", request: .ping))
    }

    @Test func unknownFieldsAreIgnoredAndIntegralTimeoutsAccepted() throws {
        let text = #"{"id":"x","op":"initiateCall","extra":1,"data":{"receiverId":"b","receiverType":"user","#
            + #""callType":"audio","timeout":45.0,"metadata":null,"whatever":[1]}}"#
        let frame = try RequestFrame.decode(JSONText.data(text))
        #expect(frame.request == .initiateCall(InitiateCallParams(
            receiverId: "b", receiverType: .user, callType: .audio, timeout: 45)))
    }

    @Test(arguments: [
        ("not json", "frame is not valid JSON"),
        (#"{"id":"1","op":"ping",}"#, "frame is not valid JSON"),
        (#"{"id":"1","op":"ping","data":{"x":1e400}}"#, "frame is not valid JSON"),
        (#"{"id":"1","op":"ping","data":{"x":"\ud800"}}"#, "frame is not valid JSON"),
        ("{\"id\":\"1\",\"op\":\"ping\"}\u{0}", "frame is not valid JSON"),
        ("[1,2]", "frame: expected a JSON object"),
        (#"{"op":"ping"}"#, "id: expected a string of 1 to 64 UTF-8 bytes"),
        (#"{"id":7,"op":"ping"}"#, "id: expected a string of 1 to 64 UTF-8 bytes"),
        (#"{"id":"","op":"ping"}"#, "id: expected a string of 1 to 64 UTF-8 bytes"),
        (#"{"id":""# + String(repeating: "x", count: 65) + #"","op":"ping"}"#,
         "id: expected a string of 1 to 64 UTF-8 bytes"),
    ])
    func framesWithoutAReadableIDFailWithoutID(text: String, message: String) {
        #expect(throws: FrameDecodingError(id: nil, message: message)) {
            try RequestFrame.decode(JSONText.data(text))
        }
    }

    @Test(arguments: [
        (#"{"id":"i","data":{}}"#, "op: expected a string"),
        (#"{"id":"i","op":3}"#, "op: expected a string"),
        (#"{"id":"i","op":"dance"}"#, "unknown op 'dance'"),
        (#"{"id":"i","op":"ping","data":[]}"#, "data: expected an object"),
        (#"{"id":"i","op":"connect"}"#, "data.token: missing, expected a string"),
        (#"{"id":"i","op":"connect","data":{"token":5}}"#, "data.token: expected a string"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverType":"user","callType":"audio"}}"#,
         "data.receiverId: missing, expected a string"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"team","callType":"audio"}}"#,
         "data.receiverType: expected one of user, group"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"user","callType":"hologram"}}"#,
         "data.callType: expected one of audio, video"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"user"}}"#,
         "data.callType: expected one of audio, video"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"user","callType":"audio","timeout":4.5}}"#,
         "data.timeout: expected an integer"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"user","callType":"audio","timeout":"9"}}"#,
         "data.timeout: expected an integer"),
        (#"{"id":"i","op":"initiateCall","data":{"receiverId":"b","receiverType":"user","callType":"audio","metadata":[]}}"#,
         "data.metadata: expected an object"),
        (#"{"id":"i","op":"acceptCall","data":{"sessionId":null}}"#, "data.sessionId: missing, expected a string"),
        (#"{"id":"i","op":"endCall","data":{"sessionId":true}}"#, "data.sessionId: expected a string"),
        (#"{"id":"i","op":"rejectCall","data":{"sessionId":"s","status":"ended"}}"#,
         "data.status: expected one of rejected, busy, cancelled"),
    ])
    func badFieldsNameTheFieldAndKeepTheID(text: String, message: String) {
        #expect(throws: FrameDecodingError(id: "i", message: message)) {
            try RequestFrame.decode(JSONText.data(text))
        }
    }

    @Test func anIDOfSixtyFourBytesIsFineAndOneMoreIsNot() throws {
        let id = String(repeating: "é", count: 32)
        let frame = try RequestFrame.decode(RequestFrame(id: id, request: .ping).encoded())
        #expect(frame.id == id)
        #expect(throws: FrameDecodingError(id: nil, message: "id: expected a string of 1 to 64 UTF-8 bytes")) {
            try RequestFrame.decode(RequestFrame(id: id + "e", request: .ping).encoded())
        }
    }

    /// fuzz: tools/fuzz/regressions/frame/utf16-nesting-undercount. In UTF-16BE, "≡" is the bytes
    /// 22 61, a quote to a UTF-8 scan, which then took every bracket after it for string content.
    @Test func aUTF16FrameCannotHideItsNesting() throws {
        let text = #"{"id":"≡","op":"ping","data":{"x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}}"
        let bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(throws: FrameDecodingError.self) { try RequestFrame.decode(bytes) }
        let shallow = #"{"id":"1","op":"ping"}"#.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(throws: FrameDecodingError.self) { try RequestFrame.decode(shallow) }
    }

    @Test func theFirstOfTwoEqualKeysCounts() throws {
        let frame = try RequestFrame.decode(JSONText.data(#"{"id":"first","op":"ping","id":"second","op":"dance"}"#))
        #expect(frame == RequestFrame(id: "first", request: .ping))
    }

    @Test func framesNestedTooDeeplyAreRefusedBeforeParsing() throws {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(throws: FrameDecodingError(id: nil, message: "frame is not UTF-8 JSON nesting at most 32 levels")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"1","op":"ping","data":{"x":\#(deep)}}"#))
        }
        let unauthenticatedBomb = String(repeating: #"{"a":"#, count: 400) + "1" + String(repeating: "}", count: 400)
        #expect(throws: FrameDecodingError.self) { try RequestFrame.decode(JSONText.data(unauthenticatedBomb)) }
        let atLimit = String(repeating: "[", count: 30) + String(repeating: "]", count: 30)
        let frame = try RequestFrame.decode(JSONText.data(#"{"id":"1","op":"ping","data":{"x":\#(atLimit)}}"#))
        #expect(frame.request == .ping)
    }
}
