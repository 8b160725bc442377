import CallGateProtocol
import Testing

@Suite struct SessionPushTests {
    static let alicePart = Participant(
        uid: "alice", name: "Alice", avatar: "https://img.example/a/alice.png", joinedAt: 1_700_000_000,
        audioMuted: false, videoMuted: true)
    static let bobPart = Participant(
        uid: "bob", name: "Bob", joinedAt: 1_700_000_004, audioMuted: true, videoMuted: false)

    static let pushes: [Push] = [
        .userJoined(sessionId: "v1.ab", user: Samples.bob),
        .userLeft(sessionId: "v1.ab", user: Samples.alice),
        .userListChanged(sessionId: "v1.ab", participants: [alicePart, bobPart]),
        .userListChanged(sessionId: "v1.ab", participants: []),
        .userMuted(sessionId: "v1.ab", user: Samples.bob, audioMuted: true, videoMuted: false),
        .recordingToggled(sessionId: "v1.ab", recordingStarted: true, user: Samples.alice),
        .recordingToggled(sessionId: "v1.ab", recordingStarted: false, user: Samples.bob),
        .callSwitchedToVideo(sessionId: "v1.ab", requestedBy: Samples.bob),
        .sessionTimeout(sessionId: "room:1"),
        .callEnded(sessionId: "room:1"),
        .userMuted(sessionId: "v1.ab", user: Samples.bob, audioMuted: true, videoMuted: false, mutedBy: Samples.alice),
        .removedFromCall(sessionId: "v1.ab", by: Samples.alice),
        .removedFromCall(sessionId: "v1.ab", by: nil),
        .sessionEvent(sessionId: "room:1", type: "raiseHand", data: nil, user: Samples.bob),
        .sessionEvent(
            sessionId: "room:1", type: "reaction", data: .object(["emoji": .string("👏"), "at": .array([.number(1.5)])]),
            user: Samples.bob),
        .callHeld(sessionId: "v1.ab", user: Samples.alice),
        .callResumed(sessionId: "v1.ab", user: Samples.alice),
        .userListChanged(sessionId: "v1.ab", participants: [
            Participant(uid: "alice", name: "Alice", joinedAt: 1_700_000_000, audioMuted: false, videoMuted: false, onHold: true),
        ]),
    ]

    @Test(arguments: pushes)
    func encodeThenDecodeIsIdentity(push: Push) throws {
        try expectRoundTrip(push)
    }

    @Test func eventNames() {
        #expect(Self.pushes.map(\.event) == [
            .onUserJoined, .onUserLeft, .onUserListChanged, .onUserListChanged, .onUserMuted,
            .onRecordingToggled, .onRecordingToggled, .onCallSwitchedToVideo, .onSessionTimeout, .onCallEnded,
            .onUserMuted, .onRemovedFromCall, .onRemovedFromCall, .onSessionEvent, .onSessionEvent,
            .onCallHeld, .onCallResumed, .onUserListChanged,
        ])
    }

    @Test func exactFrames() throws {
        #expect(JSONText.string(Push.callEnded(sessionId: "room:1").encodedFrame(seq: 7))
            == #"{"data":{"sessionId":"room:1"},"event":"onCallEnded","seq":7}"#)
        #expect(JSONText.string(Push.sessionTimeout(sessionId: "room:1").encodedFrame(seq: 7))
            == #"{"data":{"sessionId":"room:1"},"event":"onSessionTimeout","seq":7}"#)
        #expect(JSONText.string(Push.userMuted(sessionId: "s", user: Samples.bob, audioMuted: true, videoMuted: false)
            .encodedFrame(seq: 7))
            == #"{"data":{"audioMuted":true,"sessionId":"s","user":{"name":"Bob","uid":"bob"},"videoMuted":false},"#
            + #""event":"onUserMuted","seq":7}"#)
        #expect(JSONText.string(Push.recordingToggled(sessionId: "s", recordingStarted: true, user: Samples.bob)
            .encodedFrame(seq: 7))
            == #"{"data":{"recordingStarted":true,"sessionId":"s","user":{"name":"Bob","uid":"bob"}},"#
            + #""event":"onRecordingToggled","seq":7}"#)
        #expect(JSONText.string(Push.callSwitchedToVideo(sessionId: "s", requestedBy: Samples.bob).encodedFrame(seq: 7))
            == #"{"data":{"requestedBy":{"name":"Bob","uid":"bob"},"sessionId":"s"},"event":"onCallSwitchedToVideo","seq":7}"#)
        #expect(JSONText.string(Push.userListChanged(sessionId: "s", participants: [Self.bobPart]).encodedFrame(seq: 7))
            == #"{"data":{"participants":[{"audioMuted":true,"joinedAt":1700000004,"name":"Bob","uid":"bob","#
            + #""videoMuted":false}],"sessionId":"s"},"event":"onUserListChanged","seq":7}"#)
    }

    @Test func dataStructsMatchTheEncoding() throws {
        let joined = Push.userJoined(sessionId: "s", user: Samples.alice).encodedFrame(seq: 7)
        #expect(try ServerFrame.decodePushData(UserJoinedData.self, from: joined)
            == UserJoinedData(sessionId: "s", user: Samples.alice))
        let left = Push.userLeft(sessionId: "s", user: Samples.bob).encodedFrame(seq: 7)
        #expect(try ServerFrame.decodePushData(UserLeftData.self, from: left) == UserLeftData(sessionId: "s", user: Samples.bob))
        let switched = Push.callSwitchedToVideo(sessionId: "s", requestedBy: Samples.bob).encodedFrame(seq: 7)
        #expect(try ServerFrame.decodePushData(CallSwitchedToVideoData.self, from: switched)
            == CallSwitchedToVideoData(sessionId: "s", requestedBy: Samples.bob))
    }

    @Test(arguments: [
        #"{"event":"onUserJoined","data":{"sessionId":"s"}}"#,
        #"{"event":"onUserMuted","data":{"sessionId":"s","user":{"uid":"b","name":"B"},"audioMuted":true}}"#,
        #"{"event":"onRecordingToggled","data":{"sessionId":"s","recordingStarted":"yes","user":{"uid":"b","name":"B"}}}"#,
        #"{"event":"onCallEnded","data":{}}"#,
        #"{"event":"onUserListChanged","data":{"sessionId":"s","participants":[{"uid":"b"}]}}"#,
    ])
    func incompleteDataDoesNotDecode(text: String) throws {
        let raw = JSONText.data(text)
        guard case .push(let event, _, _) = try ServerFrame.decode(raw) else {
            Issue.record("expected a push")
            return
        }
        #expect(throws: DecodingError.self) {
            try Push(event: event, frame: raw)
        }
    }
}
