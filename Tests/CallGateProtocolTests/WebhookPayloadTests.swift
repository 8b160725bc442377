@testable import CallGateProtocol
import Foundation
import Testing

/// A webhook's body is written by `JSONWriter`: the same bytes as Foundation's encoder (sorted
/// keys, unescaped slashes) for any data an event can carry; its timestamp is RFC 3339 with
/// exact milliseconds (Foundation's ISO 8601 style goes through a Double and is off by one
/// millisecond for some instants, so the reference here is its calendar on whole seconds).
@Suite struct WebhookPayloadTests {
    /// The payload as Foundation encodes it.
    struct FoundationPayload: Encodable {
        var data: WebhookData
        var timestamp: String
        var type: WebhookEventType
    }

    /// `millis` in RFC 3339 from Foundation's Gregorian calendar in UTC, on whole seconds.
    static func calendarRFC3339(_ millis: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let (seconds, milli) = millis.quotientAndRemainder(dividingBy: 1000)
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? -1)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T\(pad(parts.hour, 2)):"
            + "\(pad(parts.minute, 2)):\(pad(parts.second, 2)).\(pad(Int(milli), 3))Z"
    }

    @Test func randomEventsOfHostileTextAsFoundationWritesThem() throws {
        var random = RandomWireValues(seed: 16)
        var ids = SystemRandomNumberGenerator()
        for index in 0..<300 {
            let recording = CallLogRecording(
                rid: random.text(), recordingUrl: random.flip() ? "https://r.example/\(random.text())" : nil,
                startedAt: Int64(random.count(upTo: 2_000_000_000)),
                endedAt: random.flip() ? Int64(random.count(upTo: 2_000_000_000)) : nil,
                duration: random.flip() ? Int64(random.count(upTo: 9_999)) : nil)
            let data = WebhookData(
                call: random.flip() ? random.call() : nil, sessionId: random.flip() ? random.text() : nil,
                user: random.flip() ? random.user() : nil, onlineDevices: random.flip() ? random.count(upTo: 11) : nil,
                by: random.flip() ? random.user() : nil, reason: random.flip() ? (random.flip() ? .hungUp : .disconnected) : nil,
                recording: random.flip() ? recording : nil)
            let type = WebhookEventType.allCases[index % WebhookEventType.allCases.count]
            let millis = Int64(random.count(upTo: 4_000_000_000)) * 1000 + Int64(random.count(upTo: 999))
            let message = WebhookMessage(
                id: WebhookMessage.makeID(at: millis, using: &ids), timestamp: millis, event: WebhookEvent(type: type, data: data))
            let expected = try JSONText.encode(FoundationPayload(data: data, timestamp: WebhookMessage.rfc3339(millis: millis), type: type))
            #expect(JSONText.string(message.payload()) == expected)
        }
    }

    @Test func timestampsAsTheCalendarHasThem() {
        let instants: [Int64] = [
            0, 1, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 1_763_800_245_311, 4_102_444_800_000,
            253_402_300_799_999, 68_169_600_000 - 1, 1_709_164_800_123,
        ]
        #expect(WebhookMessage.rfc3339(millis: 1_763_800_245_311) == "2025-11-22T08:30:45.311Z")
        #expect(WebhookMessage.rfc3339(millis: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        for millis in instants {
            #expect(WebhookMessage.rfc3339(millis: millis) == Self.calendarRFC3339(millis), "\(millis)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let millis = Int64.random(in: 0...253_402_300_799_999, using: &random)
            #expect(WebhookMessage.rfc3339(millis: millis) == Self.calendarRFC3339(millis), "\(millis)")
        }
    }

    @Test func timestampsOutsideFourDigitYearsAreClampedNotTrapped() {
        #expect(WebhookMessage.rfc3339(millis: .max) == "9999-12-31T23:59:59.999Z")
        #expect(WebhookMessage.rfc3339(millis: .min) == "0000-01-01T00:00:00.000Z")
        #expect(WebhookMessage.rfc3339(millis: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func idsAreMsgAndTwentySixCrockfordCharactersSortedByTime() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let early = WebhookMessage.makeID(at: 1_763_800_245_311, using: &random)
        let late = WebhookMessage.makeID(at: 1_763_800_245_312, using: &random)
        for id in [early, late] {
            #expect(id.hasPrefix("msg_") && id.count == 30 && id.dropFirst(4).allSatisfy(alphabet.contains))
        }
        #expect(early < late)
        #expect(WebhookMessage.makeID(at: 5, using: &random) != WebhookMessage.makeID(at: 5, using: &random))
    }
}
