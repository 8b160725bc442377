import CallGateCore
import CallGateProtocol

/// Shorthands for the session ops, and the start of the clock in Unix seconds.
extension Fixture {
    /// `Fixture.start` in Unix seconds, as session timestamps carry it.
    static let t0 = start / 1000

    func join(
        _ sessionId: String, from connection: ConnectionID, audioOnly: Bool = false, idleTimeout: Int? = nil
    ) -> Observed<Session> {
        joinSession(sessionId: sessionId, from: connection, audioOnly: audioOnly, idleTimeout: idleTimeout)
    }

    func leave(_ sessionId: String, from connection: ConnectionID) -> Observed<Session> {
        leaveSession(sessionId: sessionId, from: connection)
    }

    func mute(_ sessionId: String, audio: Bool? = nil, video: Bool? = nil, from connection: ConnectionID) -> Observed<Session> {
        setMuted(SetMutedParams(sessionId: sessionId, audioMuted: audio, videoMuted: video), from: connection)
    }

    func record(_ sessionId: String, _ on: Bool, from connection: ConnectionID) -> Observed<Session> {
        setRecording(sessionId: sessionId, on: on, from: connection)
    }

    func video(_ sessionId: String, from connection: ConnectionID) -> Observed<Session> {
        switchToVideo(sessionId: sessionId, from: connection)
    }

    func authorize(_ sessionId: String, from connection: ConnectionID) -> Result<User, CoreError> {
        core.authorizeCallToken(sessionId: sessionId, from: connection)
    }

    /// The participant entry of `uid` as the fixture names users.
    static func participant(_ uid: String, joinedAt: Int64, audio: Bool = false, video: Bool = false) -> Participant {
        let user = user(uid)
        return Participant(uid: uid, name: user.name, joinedAt: joinedAt, audioMuted: audio, videoMuted: video)
    }
}
