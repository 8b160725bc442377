import Foundation

/// What a webhook tells the app's backend, in the payload's `type`.
///
/// Two kinds: what happens to a call (`call.initiated`, one terminal `call.<status>` exactly as
/// the call log ends it, and `call.accepted` for each user who answers) and what happens to each
/// user it rings (`call.ringing`, then `call.accepted`, `call.declined` or `call.missed` while the
/// call goes on; a terminal event stops everyone still rung). The `session.*` events follow the
/// call session: who joined and left it, and its recordings.
public enum WebhookEventType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A call was created (it rings its callees next, unless every one is busy).
    case callInitiated = "call.initiated"
    /// The call rings `user`; `onlineDevices` of theirs got the ring (0: wake a device with a push).
    case callRinging = "call.ringing"
    /// A participant (`by`) rang `user` into the answered call (`inviteToCall`); `call.ringing`
    /// for them follows.
    case callInvited = "call.invited"
    /// `user` answered; the first answer makes the call `ongoing`.
    case callAccepted = "call.accepted"
    /// `user`, a member of a group call, declined; the call rings the others on.
    case callDeclined = "call.declined"
    /// The ring timed out for `user`, a member of a group call someone answered; it goes on.
    case callMissed = "call.missed"
    /// Terminal: the callee, or every member rung, declined.
    case callRejected = "call.rejected"
    /// Terminal: the callee was busy.
    case callBusy = "call.busy"
    /// Terminal: the caller hung up (or vanished) before anyone answered.
    case callCancelled = "call.cancelled"
    /// Terminal: nobody answered before the ring timeout.
    case callUnanswered = "call.unanswered"
    /// Terminal: an answered call is over.
    case callEnded = "call.ended"
    /// `user` joined the call session.
    case participantJoined = "session.participant_joined"
    /// `user` left the call session.
    case participantLeft = "session.participant_left"
    /// `user` was removed from the call session: by the host `by`, or by the app's backend (`by`
    /// absent). A `session.participant_left` for them follows.
    case participantRemoved = "session.participant_removed"
    /// `user` started a recording of the session.
    case recordingStarted = "session.recording_started"
    /// A recording stopped: by `user`, or when the session ended.
    case recordingStopped = "session.recording_stopped"
    /// `user` put the call on hold.
    case callHeld = "session.call_held"
    /// `user` took the call off hold.
    case callResumed = "session.call_resumed"

    /// The terminal event of a call that ended with `status`; nil for a live status.
    public init?(terminal status: CallStatus) {
        switch status {
        case .rejected: self = .callRejected
        case .busy: self = .callBusy
        case .cancelled: self = .callCancelled
        case .unanswered: self = .callUnanswered
        case .ended: self = .callEnded
        case .initiated, .ongoing: return nil
        }
    }
}

/// One event for the app's backend: its type and its data. The webhook sends it as the payload
/// `{"data", "timestamp", "type"}` (`WebhookMessage`).
public struct WebhookEvent: Codable, Hashable, Sendable {
    /// What happened.
    public var type: WebhookEventType
    /// The call or session it happened to, and the event's own fields.
    public var data: WebhookData

    /// Makes an event.
    public init(type: WebhookEventType, data: WebhookData) {
        self.type = type
        self.data = data
    }

    /// The session the event is about: events of one session are delivered in order.
    public var sessionId: String {
        data.call?.sessionId ?? data.sessionId ?? ""
    }
}

/// The `data` of a webhook payload: the call as pushes show it, and the members the event type
/// uses (the others are absent). See proto/schemas/webhook.*.json.
public struct WebhookData: Codable, Hashable, Sendable {
    /// The call as it stands after the event; absent for a meeting (a session without a call).
    public var call: Call?
    /// The session, for `session.*` events.
    public var sessionId: String?
    /// Who the event is about: rung, answering, declining, missing, joining, leaving, recording.
    public var user: User?
    /// How many of `user`'s devices the gateway reached with the ring (`call.ringing`).
    public var onlineDevices: Int?
    /// Who ended the call: the decliner, the busy callee, the caller who cancelled, the
    /// participant who hung up (terminal events; absent for a timeout).
    public var by: User?
    /// Why a participant left or the call ended: `hungUp` or `disconnected`.
    public var reason: EndReason?
    /// The recording (`session.recording_*`).
    public var recording: CallLogRecording?

    /// Makes event data.
    public init(
        call: Call? = nil, sessionId: String? = nil, user: User? = nil, onlineDevices: Int? = nil, by: User? = nil,
        reason: EndReason? = nil, recording: CallLogRecording? = nil
    ) {
        self.call = call
        self.sessionId = sessionId
        self.user = user
        self.onlineDevices = onlineDevices
        self.by = by
        self.reason = reason
        self.recording = recording
    }
}

/// One webhook as the outbox keeps it: the event, its id (the receiver's idempotency key, the
/// same on every attempt) and when it happened.
public struct WebhookMessage: Codable, Hashable, Sendable {
    /// `msg_` and 26 characters: the time in milliseconds and 80 random bits, in Crockford's
    /// base 32, so ids sort by creation.
    public var id: String
    /// When it happened, Unix milliseconds.
    public var timestamp: Int64
    /// What happened.
    public var event: WebhookEvent

    /// Makes a message.
    public init(id: String, timestamp: Int64, event: WebhookEvent) {
        self.id = id
        self.timestamp = timestamp
        self.event = event
    }

    /// A new message id for an event at `millis` (Unix ms): two draws of `generator` (80 of
    /// their bits), since each draw of the system generator is a system call.
    public static func makeID<Generator: RandomNumberGenerator>(at millis: Int64, using generator: inout Generator) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        var text = Array("msg_".utf8)
        text.reserveCapacity(30)
        let time = UInt64(clamping: max(0, millis)) & 0xFFFF_FFFF_FFFF
        for shift in stride(from: 45, through: 0, by: -5) {
            text.append(alphabet[Int((time >> UInt64(shift)) & 31)])
        }
        let high = generator.next()
        let low = generator.next()
        for shift in stride(from: 60, through: 0, by: -5) {
            text.append(alphabet[Int((high >> UInt64(shift)) & 31)])
        }
        for shift in stride(from: 10, through: 0, by: -5) {
            text.append(alphabet[Int((low >> UInt64(shift)) & 31)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The payload the webhook POSTs: `{"data", "timestamp", "type"}`, keys sorted, the
    /// timestamp in RFC 3339 with milliseconds (UTC). Written by `JSONWriter` (a group ring
    /// makes one per member, on the store's writer thread): the same bytes as Foundation's
    /// encoder with sorted keys and unescaped slashes, which `WebhookPayloadTests` checks.
    public func payload() -> Data {
        var json = JSONWriter(capacity: 1024)
        json.raw(#"{"data":"#)
        json.value(event.data)
        json.raw(#","timestamp":"#)
        json.string(Self.rfc3339(millis: timestamp))
        json.raw(#","type":"#)
        json.string(event.type.rawValue)
        json.raw("}")
        return json.data
    }

    /// `2026-11-23T10:00:00.123Z` for `millis` (years 0000 to 9999; outside them, clamped).
    public static func rfc3339(millis: Int64) -> String {
        let bounded = min(max(millis, -62_167_219_200_000), 253_402_300_799_999)
        let (days, dayMillis) = bounded.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, milli) = dayMillis < 0 ? (days - 1, dayMillis + 86_400_000) : (days, dayMillis)
        let (year, month, date) = civil(daysSinceEpoch: day)
        var text = ""
        text.reserveCapacity(24)
        func pad(_ value: Int64, _ width: Int) {
            let digits = String(value)
            text += String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        pad(year, 4)
        text += "-"
        pad(month, 2)
        text += "-"
        pad(date, 2)
        text += "T"
        pad(milli / 3_600_000, 2)
        text += ":"
        pad(milli / 60_000 % 60, 2)
        text += ":"
        pad(milli / 1000 % 60, 2)
        text += "."
        pad(milli % 1000, 3)
        text += "Z"
        return text
    }

    /// The proleptic Gregorian (year, month, day) of a day counted from 1970-01-01 (Howard
    /// Hinnant's `civil_from_days`).
    static func civil(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
