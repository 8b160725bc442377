import CallGateProtocol

/// The timeline: each call and meeting notes its steps as they happen (`CallSteps`), stamped
/// with the wall clock in milliseconds, and they are saved with its record. Service thread only.
extension GatewayCore {
    /// Why a participant left a session it closed (the call ended, or its last participant left).
    static let sessionClosed = "sessionClosed"
    /// Why the only participant of a session left it after being alone for their idle timeout.
    static let sessionTimedOut = "sessionTimeout"

    /// Notes a step of the rung call `live`, now.
    func note(
        _ kind: CallStepKind, in live: LiveCall, uid: String? = nil, device: ConnectionID? = nil,
        status: CallStatus? = nil
    ) {
        live.steps.add(CallStep(at: nowMillis, step: kind, uid: uid, device: device.map { String($0.rawValue) }, status: status))
    }

    /// Notes a step of `session`, now: in its rung call's timeline, or its own for a meeting.
    func note(
        _ kind: CallStepKind, in session: LiveSession, uid: String? = nil, device: ConnectionID? = nil,
        reason: String? = nil, rid: String? = nil
    ) {
        let step = CallStep(at: nowMillis, step: kind, uid: uid, device: device.map { String($0.rawValue) }, reason: reason, rid: rid)
        if let live = session.call {
            live.steps.add(step)
        } else {
            session.steps.add(step)
            logChanges.mark(meet: session)
        }
    }
}
