import CallGateKit
import CallGateProtocol

/// Turns pushes into one readable line each, for `callgate listen` and `callgate call`.
public enum PushFormatter {
    /// "Alice (alice)": a user as people and scripts both recognise them.
    public static func name(_ user: User) -> String {
        user.name == user.uid ? user.uid : "\(user.name) (\(user.uid))"
    }

    /// Who a call goes to: a user, or "group iOS Team (team-ios)".
    public static func receiver(_ call: Call) -> String {
        switch call.receiver {
        case .user(let user): name(user)
        case .group(let group): "group " + (group.name == group.guid ? group.guid : "\(group.name) (\(group.guid))")
        }
    }

    /// The line for `push`.
    public static func describe(_ push: Push) -> String {
        switch push {
        case .incomingCallReceived(let call, let invitedBy):
            if let invitedBy {
                return "\(name(invitedBy)) invites you into \(name(call.initiator))'s \(call.callType.rawValue) call [session \(call.sessionId)]"
            }
            let group = call.receiverType == .group ? " to \(receiver(call))" : ""
            return "incoming \(call.callType.rawValue) call from \(name(call.initiator))\(group) [session \(call.sessionId)]"
        case .outgoingCallAccepted(let call, let by):
            return "\(name(by)) answered the call to \(receiver(call))"
        case .outgoingCallRejected(let call, let by):
            return rejection(call, by: by)
        case .outgoingCallRinging(let call, let progress):
            return "the call to \(receiver(call)) \(describe(progress))"
        case .incomingCallCanceled(let call, let reason):
            return "the call from \(name(call.initiator)) stopped ringing: \(describe(reason))"
        case .callEndedMessageReceived(let call, let by, let reason):
            guard let by else {
                return "the app's backend ended the call" + (call.serverReason.map { ": \($0)" } ?? "")
            }
            let how = switch reason {
            case .hungUp: "hung up"
            case .disconnected: "was disconnected"
            case .removed: "was removed by the host"
            case .endedByServer: "had the call ended by the app's backend"
            }
            let ended = call.callStatus == .ended ? "; the call is over" : ""
            return "\(name(by)) \(how)\(ended)"
        case .userJoined(let sessionId, let user):
            return "\(name(user)) joined session \(sessionId)"
        case .userLeft(let sessionId, let user):
            return "\(name(user)) left session \(sessionId)"
        case .userListChanged(let sessionId, let participants):
            let names = participants.map { $0.name == $0.uid ? $0.uid : "\($0.name) (\($0.uid))" }
            return "session \(sessionId) participants: " + (names.isEmpty ? "none" : names.joined(separator: ", "))
        case .userMuted(let sessionId, let user, let audioMuted, let videoMuted, let mutedBy):
            let by = mutedBy.map { " (muted by \(name($0)))" } ?? ""
            return "\(name(user)) in session \(sessionId): audio \(audioMuted ? "muted" : "on"), video \(videoMuted ? "muted" : "on")\(by)"
        case .recordingToggled(let sessionId, let started, let user):
            return "\(name(user)) \(started ? "started" : "stopped") recording session \(sessionId)"
        case .callSwitchedToVideo(let sessionId, let requestedBy):
            return "\(name(requestedBy)) switched session \(sessionId) to video"
        case .sessionTimeout(let sessionId):
            return "session \(sessionId) timed out (alone too long)"
        case .callEnded(let sessionId):
            return "session \(sessionId) ended"
        case .missedCallsChanged(let missed):
            return missed.unseen == 0 ? "no unseen missed calls" : "\(count(missed.unseen, "unseen missed call"))"
        case .removedFromCall(let sessionId, let by):
            return "\(by.map(name) ?? "the app's backend") removed you from session \(sessionId)"
        case .callHeld(let sessionId, let user):
            return "\(name(user)) put session \(sessionId) on hold"
        case .callResumed(let sessionId, let user):
            return "\(name(user)) took session \(sessionId) off hold"
        case .sessionEvent(let sessionId, let type, let data, let user):
            let attached = (data.flatMap { try? $0.encoded() }).map { " " + String(decoding: $0, as: UTF8.self) } ?? ""
            return "\(name(user)) sent \(type) in session \(sessionId)\(attached)"
        }
    }

    static func rejection(_ call: Call, by: User?) -> String {
        switch (call.callStatus, by) {
        case (.busy, let by?): "\(name(by)) is busy"
        case (.rejected, let by?): "\(name(by)) declined"
        case (.unanswered, _): "nobody answered"
        case (let status, let by?): "\(name(by)) ended the call (\(status.rawValue))"
        case (let status, nil): "the call ended (\(status.rawValue))"
        }
    }

    /// "rings on 2 devices of 2 users (3 still rung), waking 1 user by push": the caller's screen.
    /// One line on how a reconnect went: what came back, and the sessions lost meanwhile.
    public static func describe(_ report: RecoveryReport) -> String {
        var line = report.recovered
            ? "reconnected; caught up " + count(report.missed, "missed event")
            : "reconnected; the events missed meanwhile are gone, showing the calls as they are now"
        if !report.lostSessions.isEmpty {
            line += "; no longer in " + count(report.lostSessions.count, "session")
        }
        return line
    }

    static func describe(_ progress: RingProgress) -> String {
        var parts = ["rings on \(count(progress.devices, "device"))"]
        if progress.users > 1 || progress.ringing > 1 {
            parts.append("of \(count(progress.users, "user")) (\(progress.ringing) still rung)")
        }
        if progress.waking > 0 {
            parts.append("waking \(count(progress.waking, "user")) by push")
        }
        return parts.joined(separator: ", ")
    }

    /// "1 device", "2 devices".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    static func describe(_ reason: CancelReason) -> String {
        switch reason {
        case .answeredElsewhere: "answered on another device"
        case .rejectedElsewhere: "declined on another device"
        case .cancelled: "the caller hung up"
        case .unanswered: "nobody answered in time"
        case .ended: "the group call ended"
        case .endedByServer: "the app's backend ended the call"
        }
    }
}
