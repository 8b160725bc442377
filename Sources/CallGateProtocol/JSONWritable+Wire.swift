/// The JSON of the wire types every push and the ringing ops' replies carry, written field by field in the order
/// `WireJSON`'s sorted keys put them, an optional field left out when nil as the synthesized
/// `Encodable` form does. `JSONWriterTests` checks each against Foundation's encoder.

extension CallStatus: JSONWritable {}
extension CallType: JSONWritable {}
extension CallCategory: JSONWritable {}
extension ReceiverType: JSONWritable {}
extension CancelReason: JSONWritable {}
extension EndReason: JSONWritable {}
extension ErrorCode: JSONWritable {}
extension EventName: JSONWritable {}

extension User: JSONWritable {
    /// `{"avatar"?, "name", "uid"}`.
    public func write(to json: inout JSONWriter) {
        json.raw("{")
        if let avatar {
            json.raw(#""avatar":"#)
            json.string(avatar)
            json.raw(",")
        }
        json.raw(#""name":"#)
        json.string(name)
        json.raw(#","uid":"#)
        json.string(uid)
        json.raw("}")
    }
}

extension Group: JSONWritable {
    /// `{"guid", "icon"?, "membersCount", "name"}`.
    public func write(to json: inout JSONWriter) {
        json.raw(#"{"guid":"#)
        json.string(guid)
        if let icon {
            json.raw(#","icon":"#)
            json.string(icon)
        }
        json.raw(#","membersCount":"#)
        json.integer(membersCount)
        json.raw(#","name":"#)
        json.string(name)
        json.raw("}")
    }
}

extension CallReceiver: JSONWritable {
    /// The bare User or Group object.
    public func write(to json: inout JSONWriter) {
        switch self {
        case .user(let user): json.value(user)
        case .group(let group): json.value(group)
        }
    }
}

extension Call: JSONWritable {
    /// `{"callCategory", "callStatus", "callType", "callUUID"?, "callWaiting"?, "endedAt"?, "initiatedAt",
    /// "initiator", "joinedAt"?, "metadata"?, "receiver", "receiverType", "ringExpiresAt"?,
    /// "serverReason"?, "sessionId"}`.
    public func write(to json: inout JSONWriter) {
        json.raw(#"{"callCategory":"#)
        json.value(callCategory)
        json.raw(#","callStatus":"#)
        json.value(callStatus)
        json.raw(#","callType":"#)
        json.value(callType)
        if let callUUID {
            json.raw(#","callUUID":"#)
            json.string(callUUID)
        }
        if let callWaiting {
            json.raw(#","callWaiting":"#)
            json.bool(callWaiting)
        }
        if let endedAt {
            json.raw(#","endedAt":"#)
            json.integer(endedAt)
        }
        json.raw(#","initiatedAt":"#)
        json.integer(initiatedAt)
        json.raw(#","initiator":"#)
        json.value(initiator)
        if let joinedAt {
            json.raw(#","joinedAt":"#)
            json.integer(joinedAt)
        }
        if let metadata {
            json.raw(#","metadata":"#)
            json.object(metadata)
        }
        json.raw(#","receiver":"#)
        json.value(receiver)
        json.raw(#","receiverType":"#)
        json.value(receiverType)
        if let ringExpiresAt {
            json.raw(#","ringExpiresAt":"#)
            json.integer(ringExpiresAt)
        }
        if let serverReason {
            json.raw(#","serverReason":"#)
            json.string(serverReason)
        }
        json.raw(#","sessionId":"#)
        json.string(sessionId)
        json.raw("}")
    }
}

extension Participant: JSONWritable {
    /// `{"audioMuted", "avatar"?, "joinedAt", "name", "onHold"?, "uid", "videoMuted"}`.
    public func write(to json: inout JSONWriter) {
        json.raw(#"{"audioMuted":"#)
        json.bool(audioMuted)
        if let avatar {
            json.raw(#","avatar":"#)
            json.string(avatar)
        }
        json.raw(#","joinedAt":"#)
        json.integer(joinedAt)
        json.raw(#","name":"#)
        json.string(name)
        if let onHold {
            json.raw(#","onHold":"#)
            json.bool(onHold)
        }
        json.raw(#","uid":"#)
        json.string(uid)
        json.raw(#","videoMuted":"#)
        json.bool(videoMuted)
        json.raw("}")
    }
}

extension ErrorBody: JSONWritable {
    /// `{"code", "message"}`.
    public func write(to json: inout JSONWriter) {
        json.raw(#"{"code":"#)
        json.value(code)
        json.raw(#","message":"#)
        json.string(message)
        json.raw("}")
    }
}

extension PingResult: JSONWritable {
    /// `{"serverTime"}`.
    public func write(to json: inout JSONWriter) {
        json.raw(#"{"serverTime":"#)
        json.integer(serverTime)
        json.raw("}")
    }
}

extension Push {
    /// The push frame up to its `seq`: `{"data": {...}, "event": name`, as `PushEnvelope`
    /// encodes it.
    func writeHead(to json: inout JSONWriter) {
        json.raw(#"{"data":{"#)
        switch self {
        case .incomingCallReceived(let call, let invitedBy):
            field("call", call, first: true, to: &json)
            if let invitedBy {
                field("invitedBy", invitedBy, to: &json)
            }
        case .outgoingCallAccepted(let call, let by):
            field("by", by, first: true, to: &json)
            field("call", call, to: &json)
        case .outgoingCallRejected(let call, let by):
            if let by {
                field("by", by, first: true, to: &json)
            }
            field("call", call, first: by == nil, to: &json)
        case .outgoingCallRinging(let call, let progress):
            field("call", call, first: true, to: &json)
            field("devices", Int64(progress.devices), to: &json)
            field("ringing", Int64(progress.ringing), to: &json)
            field("users", Int64(progress.users), to: &json)
            field("waking", Int64(progress.waking), to: &json)
        case .incomingCallCanceled(let call, let reason):
            field("call", call, first: true, to: &json)
            field("reason", reason, to: &json)
        case .callEndedMessageReceived(let call, let by, let reason):
            if let by {
                field("by", by, first: true, to: &json)
            }
            field("call", call, first: by == nil, to: &json)
            field("reason", reason, to: &json)
        case .userJoined(let sessionId, let user), .userLeft(let sessionId, let user), .callHeld(let sessionId, let user),
             .callResumed(let sessionId, let user):
            field("sessionId", sessionId, first: true, to: &json)
            field("user", user, to: &json)
        case .userListChanged(let sessionId, let participants):
            field("participants", participants, first: true, to: &json)
            field("sessionId", sessionId, to: &json)
        case .userMuted(let sessionId, let user, let audioMuted, let videoMuted, let mutedBy):
            field("audioMuted", audioMuted, first: true, to: &json)
            if let mutedBy {
                field("mutedBy", mutedBy, to: &json)
            }
            field("sessionId", sessionId, to: &json)
            field("user", user, to: &json)
            field("videoMuted", videoMuted, to: &json)
        case .recordingToggled(let sessionId, let recordingStarted, let user):
            field("recordingStarted", recordingStarted, first: true, to: &json)
            field("sessionId", sessionId, to: &json)
            field("user", user, to: &json)
        case .callSwitchedToVideo(let sessionId, let requestedBy):
            field("requestedBy", requestedBy, first: true, to: &json)
            field("sessionId", sessionId, to: &json)
        case .sessionTimeout(let sessionId), .callEnded(let sessionId):
            field("sessionId", sessionId, first: true, to: &json)
        case .missedCallsChanged(let missed):
            field("revision", missed.revision, first: true, to: &json)
            field("unseen", Int64(missed.unseen), to: &json)
        case .removedFromCall(let sessionId, let by):
            if let by {
                field("by", by, first: true, to: &json)
            }
            field("sessionId", sessionId, first: by == nil, to: &json)
        case .sessionEvent(let sessionId, let type, let data, let user):
            if let data {
                field("data", data, first: true, to: &json)
            }
            field("sessionId", sessionId, first: data == nil, to: &json)
            field("type", type, to: &json)
            field("user", user, to: &json)
        }
        json.raw(#"},"event":"#)
        json.value(event)
    }

    /// `"key":value`, after a comma unless it is the object's first field.
    private func field(_ key: StaticString, _ value: some JSONWritable, first: Bool = false, to json: inout JSONWriter) {
        if !first { json.raw(",") }
        json.raw("\"")
        json.raw(key)
        json.raw("\":")
        json.value(value)
    }
}

extension CallLogRecording: JSONWritable {
    /// `{"duration"?, "endedAt"?, "recordingUrl"?, "rid", "startedAt"}`.
    public func write(to json: inout JSONWriter) {
        json.raw("{")
        if let duration {
            json.raw(#""duration":"#)
            json.integer(duration)
            json.raw(",")
        }
        if let endedAt {
            json.raw(#""endedAt":"#)
            json.integer(endedAt)
            json.raw(",")
        }
        if let recordingUrl {
            json.raw(#""recordingUrl":"#)
            json.string(recordingUrl)
            json.raw(",")
        }
        json.raw(#""rid":"#)
        json.string(rid)
        json.raw(#","startedAt":"#)
        json.integer(startedAt)
        json.raw("}")
    }
}

extension WebhookData: JSONWritable {
    /// `{"by"?, "call"?, "onlineDevices"?, "reason"?, "recording"?, "sessionId"?, "user"?}`.
    public func write(to json: inout JSONWriter) {
        var first = true
        func key(_ name: StaticString, _ json: inout JSONWriter) {
            json.raw(first ? "{" : ",")
            json.raw(name)
            first = false
        }
        if let by {
            key(#""by":"#, &json)
            json.value(by)
        }
        if let call {
            key(#""call":"#, &json)
            json.value(call)
        }
        if let onlineDevices {
            key(#""onlineDevices":"#, &json)
            json.integer(onlineDevices)
        }
        if let reason {
            key(#""reason":"#, &json)
            json.value(reason)
        }
        if let recording {
            key(#""recording":"#, &json)
            json.value(recording)
        }
        if let sessionId {
            key(#""sessionId":"#, &json)
            json.string(sessionId)
        }
        if let user {
            key(#""user":"#, &json)
            json.value(user)
        }
        json.raw(first ? "{}" : "}")
    }
}
