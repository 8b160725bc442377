import Foundation

/// A server push: an event about a call or a session, sent to devices that did not cause it, or
/// news of the user's own (their missed calls).
public enum Push: Hashable, Sendable {
    /// `onIncomingCallReceived`: the call rings the device; `invitedBy` the participant who rang
    /// this user into an answered call (`inviteToCall`), nil for the call's own ring.
    case incomingCallReceived(call: Call, invitedBy: User? = nil)
    /// `onOutgoingCallAccepted`: `by` answered the call.
    case outgoingCallAccepted(call: Call, by: User)
    /// `onOutgoingCallRejected`: declined or busy (`by` set) or unanswered (`by` nil).
    case outgoingCallRejected(call: Call, by: User?)
    /// `onOutgoingCallRinging`: how far the caller's ringing call got: callee devices showing it,
    /// callees being woken by a push.
    case outgoingCallRinging(call: Call, progress: RingProgress)
    /// `onIncomingCallCanceled`: the call stopped ringing the device.
    case incomingCallCanceled(call: Call, reason: CancelReason)
    /// `onCallEndedMessageReceived`: `by` left or ended the answered call; nil when the app's
    /// backend ended it (`reason` `endedByServer`).
    case callEndedMessageReceived(call: Call, by: User?, reason: EndReason)
    /// `onUserJoined`: `user` joined the session.
    case userJoined(sessionId: String, user: User)
    /// `onUserLeft`: `user` left the session or was removed from it.
    case userLeft(sessionId: String, user: User)
    /// `onUserListChanged`: the session's participants after a join or a leave.
    case userListChanged(sessionId: String, participants: [Participant])
    /// `onUserMuted`: `user`'s mute state now; `mutedBy` the host who muted them, nil when
    /// they changed it themselves.
    case userMuted(sessionId: String, user: User, audioMuted: Bool, videoMuted: Bool, mutedBy: User? = nil)
    /// `onRecordingToggled`: `user` started (`recordingStarted` true) or stopped the recording.
    case recordingToggled(sessionId: String, recordingStarted: Bool, user: User)
    /// `onCallSwitchedToVideo`: `requestedBy` made the session's call a video call.
    case callSwitchedToVideo(sessionId: String, requestedBy: User)
    /// `onSessionTimeout`: this user was alone in the session too long and was removed.
    case sessionTimeout(sessionId: String)
    /// `onCallEnded`: the session is over.
    case callEnded(sessionId: String)
    /// `onMissedCallsChanged`: the count of the user's unseen missed calls changed (a call was
    /// missed, or a device marked calls seen).
    case missedCallsChanged(MissedCalls)
    /// `onRemovedFromCall`: the host (`by`; nil: the app's backend) removed this user from the
    /// session.
    case removedFromCall(sessionId: String, by: User?)
    /// `onSessionEvent`: `user` sent an app-defined event of `type` with `data` to the session.
    case sessionEvent(sessionId: String, type: String, data: JSONValue?, user: User)
    /// `onCallHeld`: `user` put the call on hold.
    case callHeld(sessionId: String, user: User)
    /// `onCallResumed`: `user` took the call off hold.
    case callResumed(sessionId: String, user: User)

    /// The event name this push is sent under.
    public var event: EventName {
        switch self {
        case .incomingCallReceived: .onIncomingCallReceived
        case .outgoingCallAccepted: .onOutgoingCallAccepted
        case .outgoingCallRejected: .onOutgoingCallRejected
        case .outgoingCallRinging: .onOutgoingCallRinging
        case .incomingCallCanceled: .onIncomingCallCanceled
        case .callEndedMessageReceived: .onCallEndedMessageReceived
        case .userJoined: .onUserJoined
        case .userLeft: .onUserLeft
        case .userListChanged: .onUserListChanged
        case .userMuted: .onUserMuted
        case .recordingToggled: .onRecordingToggled
        case .callSwitchedToVideo: .onCallSwitchedToVideo
        case .sessionTimeout: .onSessionTimeout
        case .callEnded: .onCallEnded
        case .missedCallsChanged: .onMissedCallsChanged
        case .removedFromCall: .onRemovedFromCall
        case .sessionEvent: .onSessionEvent
        case .callHeld: .onCallHeld
        case .callResumed: .onCallResumed
        }
    }

    /// The id of the call or session the push is about, so a client can route any push by it;
    /// empty for `onMissedCallsChanged`, which is about no one call.
    public var sessionId: String {
        switch self {
        case .incomingCallReceived(let call, _),
             .outgoingCallAccepted(let call, _),
             .outgoingCallRejected(let call, _),
             .outgoingCallRinging(let call, _),
             .incomingCallCanceled(let call, _),
             .callEndedMessageReceived(let call, _, _):
            call.sessionId
        case .userJoined(let sessionId, _),
             .userLeft(let sessionId, _),
             .userListChanged(let sessionId, _),
             .userMuted(let sessionId, _, _, _, _),
             .recordingToggled(let sessionId, _, _),
             .callSwitchedToVideo(let sessionId, _),
             .sessionTimeout(let sessionId),
             .callEnded(let sessionId),
             .removedFromCall(let sessionId, _),
             .sessionEvent(let sessionId, _, _, _),
             .callHeld(let sessionId, _),
             .callResumed(let sessionId, _):
            sessionId
        case .missedCallsChanged:
            ""
        }
    }
}

/// The name of a server push, as sent in the frame's `event` field. Names follow the calling SDKs.
public enum EventName: String, Codable, Hashable, Sendable, CaseIterable {
    /// A call rings this device.
    case onIncomingCallReceived
    /// A callee answered the caller's call.
    case onOutgoingCallAccepted
    /// The caller's call was declined, found the callee busy, or was not answered in time.
    case onOutgoingCallRejected
    /// How far the caller's ringing call got: callee devices showing it, callees being woken.
    case onOutgoingCallRinging
    /// A call that rang this device stopped ringing.
    case onIncomingCallCanceled
    /// A participant left (or ended) an answered call.
    case onCallEndedMessageReceived
    /// A user joined a session this device's user is in.
    case onUserJoined
    /// A user left a session this device's user is in.
    case onUserLeft
    /// The participant list of a session changed (after every join and leave).
    case onUserListChanged
    /// A participant muted or unmuted their audio or video.
    case onUserMuted
    /// A participant started or stopped the recording of a session.
    case onRecordingToggled
    /// A participant turned the session's audio call into a video call.
    case onCallSwitchedToVideo
    /// This user was alone in a session for their idle timeout and was removed from it.
    case onSessionTimeout
    /// The session is over.
    case onCallEnded
    /// The count of the user's unseen missed calls changed.
    case onMissedCallsChanged
    /// The session's host (or the app's backend) removed this user from the session.
    case onRemovedFromCall
    /// A participant sent an app-defined event to the session (raise hand, a reaction).
    case onSessionEvent
    /// A participant put the call on hold.
    case onCallHeld
    /// A participant took the call off hold.
    case onCallResumed

    /// Whether a push of this event tells a state whole, with its own revision, so the user's
    /// next push of it replaces this one: a device that missed both needs only the newer (the
    /// missed-call count).
    public var isReplacedByNext: Bool {
        self == .onMissedCallsChanged
    }
}

/// The `{"data", "event", "seq"}` shape of a push frame, generic over the data struct.
struct PushEnvelope<Payload: Codable>: Codable {
    /// The event's data.
    var data: Payload
    /// The event name.
    var event: String
    /// The push's number in its user's sequence.
    var seq: UInt64
}

extension Push {
    /// The push as one complete frame for a user: `{"data": {...}, "event": name, "seq": seq}`.
    /// Written by `JSONWriter`, the same bytes as Foundation's encoder writes for its
    /// `PushEnvelope`. A server sending the push to many users encodes `encodedHead()` once.
    public func encodedFrame(seq: UInt64) -> Data {
        Data(PushFrame.complete(head: encodedHead(), seq: seq))
    }

    /// The frame up to its user's `seq`: `{"data": {...}, "event": name`, the same for every
    /// user the push goes to; `PushFrame.tail(seq:)` closes it.
    public func encodedHead() -> [UInt8] {
        var json = JSONWriter()
        writeHead(to: &json)
        return json.bytes
    }
}

/// A push frame on the wire is its shared head (`Push.encodedHead`) and a tail that numbers it
/// for one user, `,"seq":N}`: keys in byte order put `seq` last.
public enum PushFrame {
    /// The most bytes a tail takes: `,"seq":` and the 20 digits of the largest `UInt64`, `}`.
    public static let maxTailCount = 28

    /// `,"seq":N}`.
    public static func tail(seq: UInt64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: maxTailCount) { buffer, count in
            count = writeTail(seq: seq, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Writes `,"seq":N}` at the start of `buffer` (at least `maxTailCount` bytes) and returns
    /// how many bytes it wrote: a frame for many users is numbered in place, without a tail of
    /// its own per user.
    public static func writeTail(seq: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        precondition(buffer.count >= maxTailCount, "a push frame's tail needs \(maxTailCount) bytes")
        let key = #","seq":"#.utf8
        var count = 0
        for byte in key {
            buffer[count] = byte
            count += 1
        }
        var digits = 1
        var rest = seq / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var value = seq
        for index in stride(from: count + digits - 1, through: count, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
            value /= 10
        }
        count += digits
        buffer[count] = UInt8(ascii: "}")
        return count + 1
    }

    /// The complete frame of `head` numbered `seq`.
    public static func complete(head: [UInt8], seq: UInt64) -> [UInt8] {
        head + tail(seq: seq)
    }
}

extension Push {
    /// Rebuilds a typed push from a push frame, as `ServerFrame.push` delivers it.
    ///
    /// Throws `DecodingError` when the event is unknown or its data does not match.
    public init(event: String, frame: Data) throws {
        guard let name = EventName(rawValue: event) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown event '\(event)'"))
        }
        switch name {
        case .onIncomingCallReceived:
            let data = try ServerFrame.decodePushData(IncomingCallReceivedData.self, from: frame)
            self = .incomingCallReceived(call: data.call, invitedBy: data.invitedBy)
        case .onOutgoingCallAccepted:
            let data = try ServerFrame.decodePushData(OutgoingCallAcceptedData.self, from: frame)
            self = .outgoingCallAccepted(call: data.call, by: data.by)
        case .onOutgoingCallRejected:
            let data = try ServerFrame.decodePushData(OutgoingCallRejectedData.self, from: frame)
            self = .outgoingCallRejected(call: data.call, by: data.by)
        case .onOutgoingCallRinging:
            let data = try ServerFrame.decodePushData(OutgoingCallRingingData.self, from: frame)
            self = .outgoingCallRinging(call: data.call, progress: data.progress)
        case .onIncomingCallCanceled:
            let data = try ServerFrame.decodePushData(IncomingCallCanceledData.self, from: frame)
            self = .incomingCallCanceled(call: data.call, reason: data.reason)
        case .onCallEndedMessageReceived:
            let data = try ServerFrame.decodePushData(CallEndedMessageReceivedData.self, from: frame)
            self = .callEndedMessageReceived(call: data.call, by: data.by, reason: data.reason)
        case .onUserJoined:
            let data = try ServerFrame.decodePushData(UserJoinedData.self, from: frame)
            self = .userJoined(sessionId: data.sessionId, user: data.user)
        case .onUserLeft:
            let data = try ServerFrame.decodePushData(UserLeftData.self, from: frame)
            self = .userLeft(sessionId: data.sessionId, user: data.user)
        case .onUserListChanged:
            let data = try ServerFrame.decodePushData(UserListChangedData.self, from: frame)
            self = .userListChanged(sessionId: data.sessionId, participants: data.participants)
        case .onUserMuted:
            let data = try ServerFrame.decodePushData(UserMutedData.self, from: frame)
            self = .userMuted(
                sessionId: data.sessionId, user: data.user, audioMuted: data.audioMuted, videoMuted: data.videoMuted,
                mutedBy: data.mutedBy)
        case .onRecordingToggled:
            let data = try ServerFrame.decodePushData(RecordingToggledData.self, from: frame)
            self = .recordingToggled(sessionId: data.sessionId, recordingStarted: data.recordingStarted, user: data.user)
        case .onCallSwitchedToVideo:
            let data = try ServerFrame.decodePushData(CallSwitchedToVideoData.self, from: frame)
            self = .callSwitchedToVideo(sessionId: data.sessionId, requestedBy: data.requestedBy)
        case .onSessionTimeout:
            let data = try ServerFrame.decodePushData(SessionTimeoutData.self, from: frame)
            self = .sessionTimeout(sessionId: data.sessionId)
        case .onCallEnded:
            let data = try ServerFrame.decodePushData(CallEndedData.self, from: frame)
            self = .callEnded(sessionId: data.sessionId)
        case .onMissedCallsChanged:
            self = .missedCallsChanged(try ServerFrame.decodePushData(MissedCalls.self, from: frame))
        case .onRemovedFromCall:
            let data = try ServerFrame.decodePushData(RemovedFromCallData.self, from: frame)
            self = .removedFromCall(sessionId: data.sessionId, by: data.by)
        case .onSessionEvent:
            let data = try ServerFrame.decodePushData(SessionEventData.self, from: frame)
            self = .sessionEvent(sessionId: data.sessionId, type: data.type, data: data.data, user: data.user)
        case .onCallHeld:
            let data = try ServerFrame.decodePushData(CallHoldData.self, from: frame)
            self = .callHeld(sessionId: data.sessionId, user: data.user)
        case .onCallResumed:
            let data = try ServerFrame.decodePushData(CallHoldData.self, from: frame)
            self = .callResumed(sessionId: data.sessionId, user: data.user)
        }
    }
}

/// The `data` of `onIncomingCallReceived`: a call now rings this device.
public struct IncomingCallReceivedData: Codable, Hashable, Sendable {
    /// The ringing call.
    public var call: Call
    /// Who rang this user into the answered call (`inviteToCall`); absent for the call's own ring.
    public var invitedBy: User?

    /// Makes the push data.
    public init(call: Call, invitedBy: User? = nil) {
        self.call = call
        self.invitedBy = invitedBy
    }
}

/// The `data` of `onOutgoingCallAccepted`: someone answered.
public struct OutgoingCallAcceptedData: Codable, Hashable, Sendable {
    /// The call, now `ongoing`.
    public var call: Call
    /// Who answered.
    public var by: User

    /// Makes the push data.
    public init(call: Call, by: User) {
        self.call = call
        self.by = by
    }
}

/// The `data` of `onOutgoingCallRejected`: the caller's call will not be answered.
public struct OutgoingCallRejectedData: Codable, Hashable, Sendable {
    /// The call, in its terminal status (`rejected`, `busy` or `unanswered`).
    public var call: Call
    /// Who declined or was busy; absent when the ring timed out.
    public var by: User?

    /// Makes the push data.
    public init(call: Call, by: User?) {
        self.call = call
        self.by = by
    }
}

/// Where a ringing call stands with its callees, as the caller's screen shows it ("Ringing on 2
/// devices", "Waking Bob's phone"). Counts are of the callees that still ring.
public struct RingProgress: Hashable, Sendable {
    /// Callee devices that confirmed they show the ring (`confirmRinging`).
    public var devices: Int
    /// Callees with at least one device that confirmed.
    public var users: Int
    /// Callees that still ring (declined and answered ones no longer count).
    public var ringing: Int
    /// Callees that had no device connected when rung, for whom the gateway asked the backend
    /// for a wake-up push (a `call.ringing` webhook with `onlineDevices` 0, to an enabled
    /// endpoint that wants it), until a device of theirs confirms.
    public var waking: Int

    /// Makes a progress value.
    public init(devices: Int, users: Int, ringing: Int, waking: Int) {
        self.devices = devices
        self.users = users
        self.ringing = ringing
        self.waking = waking
    }
}

/// The `data` of `onOutgoingCallRinging`: the call and its `RingProgress`'s counts, flat.
public struct OutgoingCallRingingData: Codable, Hashable, Sendable {
    /// The ringing call.
    public var call: Call
    /// `RingProgress.devices`.
    public var devices: Int
    /// `RingProgress.users`.
    public var users: Int
    /// `RingProgress.ringing`.
    public var ringing: Int
    /// `RingProgress.waking`.
    public var waking: Int

    /// Makes the push data.
    public init(call: Call, progress: RingProgress) {
        self.call = call
        devices = progress.devices
        users = progress.users
        ringing = progress.ringing
        waking = progress.waking
    }

    /// Where the call stands with its callees.
    public var progress: RingProgress {
        RingProgress(devices: devices, users: users, ringing: ringing, waking: waking)
    }
}

/// The `data` of `onIncomingCallCanceled`: a call stopped ringing this device.
public struct IncomingCallCanceledData: Codable, Hashable, Sendable {
    /// The call as it stands now.
    public var call: Call
    /// Why it stopped ringing.
    public var reason: CancelReason

    /// Makes the push data.
    public init(call: Call, reason: CancelReason) {
        self.call = call
        self.reason = reason
    }
}

/// The `data` of `onCallEndedMessageReceived`: a participant left or ended an answered call, or
/// the app's backend ended a call.
public struct CallEndedMessageReceivedData: Codable, Hashable, Sendable {
    /// The call as it stands now (`ended`, or still `ongoing` when a group call goes on;
    /// `cancelled` when the backend ended a call still ringing).
    public var call: Call
    /// Who left; nil when the app's backend ended the call.
    public var by: User?
    /// Why: they hung up, disconnected or were removed, or the backend ended the call.
    public var reason: EndReason

    /// Makes the push data.
    public init(call: Call, by: User?, reason: EndReason) {
        self.call = call
        self.by = by
        self.reason = reason
    }
}
