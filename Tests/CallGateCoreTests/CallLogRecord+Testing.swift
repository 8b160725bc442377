import CallGateCore
import CallGateProtocol

extension CallLogRecord {
    /// A finished 1:1 audio call `from` -> `to` with call id `id` and session id `s<id>`,
    /// initiated at second `id * 100`; answered calls last 60 s.
    static func sample(
        _ id: Int64, from caller: String = "alice", to callee: String = "bob", status: CallStatus = .ended,
        callType: CallType = .audio, recordings: [CallLogRecording] = []
    ) -> CallLogRecord {
        let start = id * 100
        let answered = status == .ended
        return CallLogRecord(
            id: id, sessionId: "s\(id)", callCategory: .call, callType: callType, callStatus: status,
            initiator: Fixture.user(caller), receiver: .user(Fixture.user(callee)), initiatedAt: start,
            startedAt: answered ? start : nil, endedAt: start + (answered ? 60 : 30),
            participants: [
                Fixture.entry(caller, .joined, joinedAt: answered ? start : nil, leftAt: answered ? start + 60 : nil,
                              closed: answered ? 60 : 0),
                Fixture.entry(callee, answered ? .joined : .missed, joinedAt: answered ? start : nil,
                              leftAt: answered ? start + 60 : nil, closed: answered ? 60 : 0),
            ],
            recordings: recordings)
    }
}
