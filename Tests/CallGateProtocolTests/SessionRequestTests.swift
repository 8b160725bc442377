import CallGateProtocol
import Testing

@Suite struct SessionRequestTests {
    static let frames: [RequestFrame] = [
        RequestFrame(id: "g", request: .generateToken(SessionParams(sessionId: "v1.ab"))),
        RequestFrame(id: "j1", request: .joinSession(JoinSessionParams(callToken: "c.t.s"))),
        RequestFrame(id: "j2", request: .joinSession(JoinSessionParams(callToken: "c.t.s", audioOnly: true, idleTimeout: 60))),
        RequestFrame(id: "l", request: .leaveSession(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "m1", request: .setMuted(SetMutedParams(sessionId: "room:1", audioMuted: true))),
        RequestFrame(id: "m2", request: .setMuted(SetMutedParams(sessionId: "room:1", audioMuted: false, videoMuted: true))),
        RequestFrame(id: "r1", request: .startRecording(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "r2", request: .stopRecording(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "v", request: .switchToVideo(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "hm", request: .muteParticipant(ParticipantParams(sessionId: "room:1", uid: "bob"))),
        RequestFrame(id: "hr", request: .removeParticipant(ParticipantParams(sessionId: "room:1", uid: "bob"))),
        RequestFrame(id: "e1", request: .sendSessionEvent(SessionEventParams(sessionId: "room:1", type: "raiseHand"))),
        RequestFrame(id: "e2", request: .sendSessionEvent(SessionEventParams(
            sessionId: "room:1", type: "reaction", data: .array([.string("👏"), .null, .bool(true)])))),
        RequestFrame(id: "h1", request: .holdCall(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "h2", request: .resumeCall(SessionParams(sessionId: "room:1"))),
        RequestFrame(id: "i1", request: .inviteToCall(InviteParams(sessionId: "v1.ab", receiverIds: ["carol", "dave"]))),
    ]

    @Test(arguments: frames)
    func encodeThenDecodeIsIdentity(frame: RequestFrame) throws {
        #expect(try RequestFrame.decode(frame.encoded()) == frame)
    }

    @Test func absentOptionalFieldsAreOmitted() throws {
        #expect(try JSONText.string(Self.frames[1].encoded())
            == #"{"data":{"callToken":"c.t.s"},"id":"j1","op":"joinSession"}"#)
        #expect(try JSONText.string(Self.frames[2].encoded())
            == #"{"data":{"audioOnly":true,"callToken":"c.t.s","idleTimeout":60},"id":"j2","op":"joinSession"}"#)
        #expect(try JSONText.string(Self.frames[4].encoded())
            == #"{"data":{"audioMuted":true,"sessionId":"room:1"},"id":"m1","op":"setMuted"}"#)
        #expect(try JSONText.string(Self.frames[8].encoded())
            == #"{"data":{"sessionId":"room:1"},"id":"v","op":"switchToVideo"}"#)
    }

    @Test func nullOptionalFieldsCountAsAbsent() throws {
        let join = try RequestFrame.decode(JSONText.data(
            #"{"id":"x","op":"joinSession","data":{"callToken":"t","audioOnly":null,"idleTimeout":null,"more":1}}"#))
        #expect(join.request == .joinSession(JoinSessionParams(callToken: "t")))
        let mute = try RequestFrame.decode(JSONText.data(
            #"{"id":"x","op":"setMuted","data":{"sessionId":"s","audioMuted":null,"videoMuted":false}}"#))
        #expect(mute.request == .setMuted(SetMutedParams(sessionId: "s", videoMuted: false)))
    }

    @Test func aSessionEventCarriesAnyJSONValueAndNullIsNone() throws {
        let number = try RequestFrame.decode(JSONText.data(
            #"{"id":"x","op":"sendSessionEvent","data":{"sessionId":"s","type":"t","data":3}}"#))
        #expect(number.request == .sendSessionEvent(SessionEventParams(sessionId: "s", type: "t", data: .number(3))))
        let none = try RequestFrame.decode(JSONText.data(
            #"{"id":"x","op":"sendSessionEvent","data":{"sessionId":"s","type":"t","data":null}}"#))
        #expect(none.request == .sendSessionEvent(SessionEventParams(sessionId: "s", type: "t")))
        #expect(throws: FrameDecodingError(id: "x", message: "data.type: missing, expected a string")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"x","op":"sendSessionEvent","data":{"sessionId":"s"}}"#))
        }
        #expect(throws: FrameDecodingError(id: "x", message: "data.receiverIds: missing, expected an array of strings")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"x","op":"inviteToCall","data":{"sessionId":"s"}}"#))
        }
        #expect(throws: FrameDecodingError(id: "x", message: "data.receiverIds: expected an array of strings")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"x","op":"inviteToCall","data":{"sessionId":"s","receiverIds":["a",1]}}"#))
        }
        #expect(throws: FrameDecodingError(id: "x", message: "data.uid: expected a string")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"x","op":"removeParticipant","data":{"sessionId":"s","uid":1}}"#))
        }
    }

    @Test(arguments: [
        "generateToken", "leaveSession", "startRecording", "stopRecording", "switchToVideo", "setMuted", "muteParticipant",
        "removeParticipant", "sendSessionEvent", "holdCall", "resumeCall", "inviteToCall",
    ])
    func sessionIDIsRequired(op: String) {
        #expect(throws: FrameDecodingError(id: "i", message: "data.sessionId: missing, expected a string")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"i","op":""# + op + #"","data":{}}"#))
        }
        #expect(throws: FrameDecodingError(id: "i", message: "data.sessionId: expected a string")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"i","op":""# + op + #"","data":{"sessionId":7}}"#))
        }
    }

    @Test(arguments: [
        (#"{"id":"i","op":"joinSession"}"#, "data.callToken: missing, expected a string"),
        (#"{"id":"i","op":"joinSession","data":{"callToken":["t"]}}"#, "data.callToken: expected a string"),
        (#"{"id":"i","op":"joinSession","data":{"callToken":"t","audioOnly":"yes"}}"#,
         "data.audioOnly: expected a boolean"),
        (#"{"id":"i","op":"joinSession","data":{"callToken":"t","audioOnly":1}}"#,
         "data.audioOnly: expected a boolean"),
        (#"{"id":"i","op":"joinSession","data":{"callToken":"t","idleTimeout":1.5}}"#,
         "data.idleTimeout: expected an integer"),
        (#"{"id":"i","op":"joinSession","data":{"callToken":"t","idleTimeout":"60"}}"#,
         "data.idleTimeout: expected an integer"),
        (#"{"id":"i","op":"setMuted","data":{"sessionId":"s","audioMuted":"on"}}"#,
         "data.audioMuted: expected a boolean"),
        (#"{"id":"i","op":"setMuted","data":{"sessionId":"s","audioMuted":true,"videoMuted":0}}"#,
         "data.videoMuted: expected a boolean"),
    ])
    func badFieldsNameTheField(text: String, message: String) {
        #expect(throws: FrameDecodingError(id: "i", message: message)) {
            try RequestFrame.decode(JSONText.data(text))
        }
    }

    @Test func callTokenIsCheckedBeforeTheOptionalFields() throws {
        #expect(throws: FrameDecodingError(id: "i", message: "data.callToken: missing, expected a string")) {
            try RequestFrame.decode(JSONText.data(#"{"id":"i","op":"joinSession","data":{"audioOnly":"x"}}"#))
        }
    }
}
