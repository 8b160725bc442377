import CallGateCore
import CallGateProtocol

/// Shorthands for the call log: taking the changes, setting the clock to a second after the
/// start, and participant entries as the fixture names users.
extension Fixture {
    /// The call log rows changed since the last take, as they stand now, in id order, without
    /// their steps (the timeline's own tests read those: `loggedSteps`).
    func changes() -> [CallLogRecord] {
        defer { loggedChanges.removeAll() }
        return loggedChanges.sorted { $0.key < $1.key }.map { _, record in
            var row = record
            row.steps = CallSteps()
            return row
        }
    }

    /// Sets the clock to `seconds` after `Fixture.start` (never backwards) and runs due timers.
    @discardableResult
    func at(_ seconds: Int64) -> [Sent] {
        let target = Self.start + seconds * 1000
        precondition(target >= nowMillis, "the clock only moves forward")
        advance(millis: target - nowMillis)
        return fireDueTimers()
    }

    /// `Fixture.start` plus `seconds`, in Unix milliseconds (ring deadlines, timers).
    static func millis(_ seconds: Int64) -> Int64 {
        start + seconds * 1000
    }

    /// The call log entry of `uid`, named as `Fixture.user` names them.
    static func entry(
        _ uid: String, _ state: CallLogParticipantState, joinedAt: Int64? = nil, leftAt: Int64? = nil,
        closed: Int64 = 0, stay: Int64? = nil
    ) -> CallLogParticipantRecord {
        CallLogParticipantRecord(
            uid: uid, name: user(uid).name, state: state, joinedAt: joinedAt, leftAt: leftAt,
            closedSeconds: closed, stayStartedAt: stay)
    }
}
