/// What the core does when a timer fires.
enum TimerEvent: Hashable {
    /// The ring timeout of a call passed.
    case ringTimeout(sessionId: String)
    /// The grace period of a user whose every device disconnected passed for this call.
    case grace(uid: String, sessionId: String)
    /// A finished call has been remembered long enough.
    case forget(sessionId: String)
}
