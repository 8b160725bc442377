import CallGateCore
import CallGateProtocol

/// Small builders for call records, so each test states only what it is about.
public enum TestCalls {
    /// A user named after their uid.
    public static func user(_ uid: String) -> User {
        User(uid: uid, name: "name-\(uid)")
    }

    /// A participant in `state`.
    public static func participant(_ uid: String, _ state: CallLogParticipantState = .joined) -> CallLogParticipantRecord {
        CallLogParticipantRecord(uid: uid, name: "name-\(uid)", state: state, joinedAt: state == .joined ? 100 : nil)
    }

    /// Recordings with these rids, without URLs.
    public static func recordings(_ rids: [String]) -> [CallLogRecording] {
        rids.map { CallLogRecording(rid: $0, startedAt: 110, endedAt: 120, duration: 10) }
    }

    /// A 1:1 call from `caller` to `callee`.
    public static func direct(
        _ id: Int64, from caller: String, to callee: String, status: CallStatus = .ended, type: CallType = .audio,
        session: String? = nil, rids: [String] = []
    ) -> CallLogRecord {
        CallLogRecord(
            id: id, sessionId: session ?? "s\(id)", callCategory: .call, callType: type, callStatus: status,
            initiator: user(caller), receiver: .user(user(callee)), initiatedAt: 100 + id,
            startedAt: status == .ended || status == .ongoing ? 101 + id : nil,
            endedAt: status.isTerminal ? 200 + id : nil,
            participants: [participant(caller), participant(callee, status == .ended ? .joined : .missed)],
            recordings: recordings(rids))
    }

    /// A call from `caller` to group `guid`, ringing `members` (the caller excluded).
    public static func group(
        _ id: Int64, from caller: String, guid: String, members: [String], status: CallStatus = .ended,
        type: CallType = .video, session: String? = nil
    ) -> CallLogRecord {
        CallLogRecord(
            id: id, sessionId: session ?? "s\(id)", callCategory: .call, callType: type, callStatus: status,
            initiator: user(caller), receiver: .group(Group(guid: guid, name: "group-\(guid)", membersCount: members.count + 1)),
            initiatedAt: 100 + id, endedAt: status.isTerminal ? 200 + id : nil,
            participants: [participant(caller)] + members.map { participant($0, .missed) })
    }

    /// A meeting under `session` that `members` joined, the first one starting it.
    public static func meeting(
        _ id: Int64, session: String, members: [String], status: CallStatus = .ended, rids: [String] = []
    ) -> CallLogRecord {
        CallLogRecord(
            id: id, sessionId: session, callCategory: .meet, callType: .video, callStatus: status,
            initiator: user(members[0]), receiver: nil, initiatedAt: 100 + id, startedAt: 100 + id,
            endedAt: status.isTerminal ? 200 + id : nil, participants: members.map { participant($0) },
            recordings: recordings(rids))
    }

    /// The writes that save `records`.
    public static func writes(_ records: [CallLogRecord]) -> [StoreWrite] {
        records.map { .call($0) }
    }
}
