import CallGateProtocol
import Foundation
import TestSupport
import Testing

/// `JSONWriter` writes the same bytes as Foundation's encoder (configured as the wire's: sorted
/// keys, unescaped slashes) for every type that writes itself, whatever text and numbers the
/// values hold.
@Suite struct JSONWriterTests {
    /// The `{"event", "data", "seq"}` envelope as Foundation encodes it.
    struct Envelope<Payload: Encodable>: Encodable {
        var event: String
        var data: Payload
        var seq: UInt64 = Self.seq
        static var seq: UInt64 { 9_007_199_254_740_991 }
    }

    /// The push frame as Foundation encodes it, from the push's public data struct.
    static func foundationFrame(_ push: Push) throws -> String {
        let event = push.event.rawValue
        switch push {
        case .incomingCallReceived(let call, let invitedBy):
            return try JSONText.encode(Envelope(event: event, data: IncomingCallReceivedData(call: call, invitedBy: invitedBy)))
        case .outgoingCallAccepted(let call, let by):
            return try JSONText.encode(Envelope(event: event, data: OutgoingCallAcceptedData(call: call, by: by)))
        case .outgoingCallRejected(let call, let by):
            return try JSONText.encode(Envelope(event: event, data: OutgoingCallRejectedData(call: call, by: by)))
        case .outgoingCallRinging(let call, let progress):
            return try JSONText.encode(Envelope(event: event, data: OutgoingCallRingingData(call: call, progress: progress)))
        case .incomingCallCanceled(let call, let reason):
            return try JSONText.encode(Envelope(event: event, data: IncomingCallCanceledData(call: call, reason: reason)))
        case .callEndedMessageReceived(let call, let by, let reason):
            return try JSONText.encode(Envelope(
                event: event, data: CallEndedMessageReceivedData(call: call, by: by, reason: reason)))
        case .userJoined(let sessionId, let user):
            return try JSONText.encode(Envelope(event: event, data: UserJoinedData(sessionId: sessionId, user: user)))
        case .userLeft(let sessionId, let user):
            return try JSONText.encode(Envelope(event: event, data: UserLeftData(sessionId: sessionId, user: user)))
        case .userListChanged(let sessionId, let participants):
            return try JSONText.encode(Envelope(
                event: event, data: UserListChangedData(sessionId: sessionId, participants: participants)))
        case .userMuted(let sessionId, let user, let audioMuted, let videoMuted, let mutedBy):
            return try JSONText.encode(Envelope(
                event: event,
                data: UserMutedData(
                    sessionId: sessionId, user: user, audioMuted: audioMuted, videoMuted: videoMuted, mutedBy: mutedBy)))
        case .recordingToggled(let sessionId, let recordingStarted, let user):
            return try JSONText.encode(Envelope(
                event: event, data: RecordingToggledData(sessionId: sessionId, recordingStarted: recordingStarted, user: user)))
        case .callSwitchedToVideo(let sessionId, let requestedBy):
            return try JSONText.encode(Envelope(
                event: event, data: CallSwitchedToVideoData(sessionId: sessionId, requestedBy: requestedBy)))
        case .sessionTimeout(let sessionId):
            return try JSONText.encode(Envelope(event: event, data: SessionTimeoutData(sessionId: sessionId)))
        case .callEnded(let sessionId):
            return try JSONText.encode(Envelope(event: event, data: CallEndedData(sessionId: sessionId)))
        case .missedCallsChanged(let missed):
            return try JSONText.encode(Envelope(event: event, data: missed))
        case .removedFromCall(let sessionId, let by):
            return try JSONText.encode(Envelope(event: event, data: RemovedFromCallData(sessionId: sessionId, by: by)))
        case .sessionEvent(let sessionId, let type, let data, let user):
            return try JSONText.encode(Envelope(
                event: event, data: SessionEventData(sessionId: sessionId, type: type, data: data, user: user)))
        case .callHeld(let sessionId, let user), .callResumed(let sessionId, let user):
            return try JSONText.encode(Envelope(event: event, data: CallHoldData(sessionId: sessionId, user: user)))
        }
    }

    @Test(arguments: PushTests.pushes + SessionPushTests.pushes)
    func everyPushAsFoundationWritesIt(push: Push) throws {
        #expect(JSONText.string(push.encodedFrame(seq: 9_007_199_254_740_991)) == (try Self.foundationFrame(push)))
    }

    @Test func randomValuesOfHostileTextAsFoundationWritesThem() throws {
        var random = RandomWireValues(seed: 14)
        for _ in 0..<300 {
            let call = random.call()
            var json = JSONWriter()
            json.value(call)
            #expect(String(decoding: json.bytes, as: UTF8.self) == (try JSONText.encode(call)))

            let by = random.user()
            let participants = (0..<random.count(upTo: 4)).map { _ in random.participant() }
            let pushes: [Push] = [
                .incomingCallReceived(call: call),
                .incomingCallReceived(call: call, invitedBy: by),
                .outgoingCallRejected(call: call, by: random.flip() ? by : nil),
                .outgoingCallRinging(call: call, progress: RingProgress(
                    devices: random.count(upTo: 1000), users: random.count(upTo: 100), ringing: random.count(upTo: 100),
                    waking: random.count(upTo: 100))),
                .callEndedMessageReceived(call: call, by: by, reason: .hungUp),
                .userListChanged(sessionId: random.text(), participants: participants),
                .userMuted(sessionId: random.text(), user: by, audioMuted: random.flip(), videoMuted: random.flip()),
                .userMuted(
                    sessionId: random.text(), user: by, audioMuted: random.flip(), videoMuted: random.flip(),
                    mutedBy: random.user()),
                .removedFromCall(sessionId: random.text(), by: random.flip() ? by : nil),
                .callHeld(sessionId: random.text(), user: by),
                .sessionEvent(
                    sessionId: random.text(), type: random.text(),
                    data: random.flip() ? .object(["text": .string(random.text()), "n": .number(2)]) : nil, user: by),
            ]
            for push in pushes {
                #expect(JSONText.string(push.encodedFrame(seq: 9_007_199_254_740_991)) == (try Self.foundationFrame(push)))
            }
        }
    }

    @Test func numbersAsJSONValueEncodesThem() throws {
        let numbers: [Double] = [
            0, -0.0, 1, -1, 1.5, 0.1, -2.25, 1e20, 1e300, 5e-324, 1.7976931348623157e308, 123_456_789.125,
            9_007_199_254_740_992, 9_007_199_254_740_993, -9_007_199_254_740_992, 1e16, .infinity, -.infinity, .nan,
        ]
        for number in numbers {
            var json = JSONWriter()
            json.value(JSONValue.number(number))
            #expect(String(decoding: json.bytes, as: UTF8.self) == (try JSONText.encode(JSONValue.number(number))))
        }
    }

    @Test func repliesAsFoundationWritesThem() throws {
        struct Success<Result: Encodable>: Encodable {
            var id: String
            var result: Result
        }
        struct Failure: Encodable {
            var id: String?
            var error: ErrorBody
        }
        var random = RandomWireValues(seed: 15)
        for _ in 0..<100 {
            let id = random.text()
            let call = random.call()
            #expect(JSONText.string(ReplyFrame.success(id: id, result: call)) == (try JSONText.encode(Success(id: id, result: call))))
            let ping = PingResult(serverTime: Int64.random(in: 0...Int64.max, using: &random.generator))
            #expect(JSONText.string(ReplyFrame.success(id: id, result: ping)) == (try JSONText.encode(Success(id: id, result: ping))))
            let message = random.text()
            for code in ErrorCode.allCases {
                #expect(JSONText.string(ReplyFrame.failure(id: id, code: code, message: message))
                    == (try JSONText.encode(Failure(id: id, error: ErrorBody(code: code, message: message)))))
            }
            #expect(JSONText.string(ReplyFrame.failure(id: nil, code: .badRequest, message: message))
                == (try JSONText.encode(Failure(id: nil, error: ErrorBody(code: .badRequest, message: message)))))
        }
        let session = SessionResult(session: Session(
            sessionId: "s", callCategory: .meet, callType: .audio, participants: [SessionPushTests.bobPart],
            recording: false, startedAt: 1))
        #expect(JSONText.string(ReplyFrame.success(id: "r", result: session))
            == (try JSONText.encode(Success(id: "r", result: session))))
    }
}
