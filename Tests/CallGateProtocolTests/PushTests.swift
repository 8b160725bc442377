import CallGateProtocol
import Testing

@Suite struct PushTests {
    static let pushes: [Push] = [
        .incomingCallReceived(call: Samples.ringing),
        .outgoingCallAccepted(call: Samples.ringing, by: Samples.bob),
        .outgoingCallRejected(call: Samples.ringing, by: Samples.bob),
        .outgoingCallRejected(call: Samples.ringing, by: nil),
        .outgoingCallRinging(call: Samples.ringing, progress: RingProgress(devices: 2, users: 1, ringing: 1, waking: 0)),
        .outgoingCallRinging(call: Samples.ringing, progress: RingProgress(devices: 0, users: 0, ringing: 40, waking: 12)),
        .incomingCallCanceled(call: Samples.ringing, reason: .answeredElsewhere),
        .callEndedMessageReceived(call: Samples.ended, by: Samples.alice, reason: .disconnected),
    ]

    @Test(arguments: pushes)
    func encodeThenDecodeIsIdentity(push: Push) throws {
        try expectRoundTrip(push)
    }

    @Test func eventAndSessionIDAccessors() {
        let push = Push.incomingCallCanceled(call: Samples.ended, reason: .ended)
        #expect(push.event == .onIncomingCallCanceled)
        #expect(push.sessionId == Samples.ended.sessionId)
        #expect(Push.userMuted(sessionId: "m1", user: Samples.bob, audioMuted: true, videoMuted: false).sessionId == "m1")
        #expect(Push.callEnded(sessionId: "m2").sessionId == "m2")
    }

    @Test func envelopeShapeAndMissingBy() throws {
        let text = JSONText.string(Push.outgoingCallRejected(call: Samples.ringing, by: nil).encodedFrame(seq: 1))
        let call = try JSONText.encode(Samples.ringing)
        #expect(text == #"{"data":{"call":"# + call + #"},"event":"onOutgoingCallRejected","seq":1}"#)
    }

    @Test func dataStructsMatchTheEncoding() throws {
        let push = Push.callEndedMessageReceived(call: Samples.ended, by: Samples.bob, reason: .hungUp)
        let data = try ServerFrame.decodePushData(CallEndedMessageReceivedData.self, from: push.encodedFrame(seq: 2))
        #expect(data == CallEndedMessageReceivedData(call: Samples.ended, by: Samples.bob, reason: .hungUp))
        let text = JSONText.string(push.encodedFrame(seq: 3))
        #expect(text.contains(#""by":{"name":"Bob","uid":"bob"},"call":"#))
        #expect(text.hasSuffix(#","reason":"hungUp"},"event":"onCallEndedMessageReceived","seq":3}"#))
    }

    /// The tail written in place numbers a frame exactly as the tail made apart, for every
    /// width of `seq`, the widest `UInt64` included, and never past `maxTailCount`.
    @Test(arguments: [UInt64(0), 1, 9, 10, 99, 100, 1_234_567, UInt64.max])
    func tailWrittenInPlace(seq: UInt64) {
        var buffer = [UInt8](repeating: 0xFF, count: PushFrame.maxTailCount + 4)
        let count = buffer.withUnsafeMutableBytes { PushFrame.writeTail(seq: seq, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<PushFrame.maxTailCount])) }
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == ",\"seq\":\(seq)}")
        #expect(PushFrame.tail(seq: seq) == Array(buffer[..<count]))
        #expect(buffer[PushFrame.maxTailCount...].allSatisfy { $0 == 0xFF })
    }

    @Test func unknownEventsDoNotDecode() throws {
        let raw = JSONText.data(#"{"event":"onUserWaved","data":{}}"#)
        #expect(try ServerFrame.decode(raw) == .push(event: "onUserWaved", seq: nil, raw: raw))
        #expect(throws: DecodingError.self) {
            try Push(event: "onUserWaved", frame: raw)
        }
    }
}
