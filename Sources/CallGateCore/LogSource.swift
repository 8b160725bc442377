/// What a changed call log entry is built from when the server takes the changes.
enum LogSource {
    /// A rung call, live or finished by the op that changed it.
    case call(CallSession)
    /// A standalone session (meeting), live or closed by the op that changed it.
    case meet(SessionRoom)
}
