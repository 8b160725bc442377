import CallGateProtocol

/// One user in a live session: who they are, which of their devices joined, and their state.
/// Service thread only.
struct SessionMember {
    /// The user as the device that joined first described them.
    let user: User
    /// When their first device joined, for this stay, Unix seconds.
    let joinedAt: Int64
    /// Whether their audio is muted.
    var audioMuted = false
    /// Whether their video is muted.
    var videoMuted = false
    /// Their devices that joined and have neither left nor disconnected, oldest first. Empty while
    /// their grace period runs.
    var devices: [ConnectionID]
    /// How long they may stay alone in the session, in seconds; their latest join sets it.
    var idleTimeout: Int
    /// The grace period running while none of their devices is joined.
    var graceTimer: TimerID?

    /// The member as the wire lists them.
    var participant: Participant {
        Participant(
            uid: user.uid, name: user.name, avatar: user.avatar, joinedAt: joinedAt,
            audioMuted: audioMuted, videoMuted: videoMuted)
    }
}
