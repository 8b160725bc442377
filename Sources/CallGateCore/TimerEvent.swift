/// What the core does when a timer fires.
enum TimerEvent: Hashable {
    /// The ring timeout of a call passed.
    case ringTimeout(sessionId: String)
    /// The grace period of a user whose every device disconnected passed for this call.
    case grace(uid: String, sessionId: String)
    /// A finished call has been remembered long enough.
    case forget(sessionId: String)
    /// The only participant of a session has been alone in it for their idle timeout.
    case idle(sessionId: String)
    /// A session participant's last joined device disconnected a grace period ago.
    case sessionGrace(uid: String, sessionId: String)
    /// The history of a finished session has been kept long enough.
    case forgetHistory(sessionId: String)
    /// A meeting resumed after a restart has waited long enough for someone to join it again.
    case vacant(sessionId: String)
}
