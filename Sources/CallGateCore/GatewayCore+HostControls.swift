import CallGateProtocol

/// What the host of a session may do to the others in it: mute them and remove them. The host is
/// the call's initiator, or for a meeting the user who started it (`LiveSession.host`); anyone
/// else gets `ERR_NOT_HOST`. Service thread only.
extension GatewayCore {
    /// The host mutes participant `params.uid`'s audio. Every device of every participant except
    /// `connection` gets `onUserMuted` with `mutedBy`, the muted user's own devices included, so
    /// their app turns the microphone off; the history keeps the change as any mute. A user
    /// already muted is left as is, and nothing is sent. The participant may unmute with
    /// `setMuted`, as in the calling SDKs.
    ///
    /// Errors, in order: the session errors of `setMuted` for the host's own device;
    /// `ERR_NOT_HOST`; a malformed uid or the host's own (`ERR_BAD_REQUEST`: use `setMuted`);
    /// a user not in the session (`ERR_NOT_PARTICIPANT`).
    public func muteParticipant(_ params: ParticipantParams, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, host) = try hostedSession(params.sessionId, from: connection)
            let target = try participant(params.uid, of: session, actingAs: host.user.uid, instead: "setMuted")
            mute(target, in: session, by: host.user, excluding: connection, into: &list)
            return session.snapshot
        }
    }

    /// The host removes participant `params.uid` from the session, every device of theirs: those
    /// devices get `onRemovedFromCall {sessionId, by}`, and the user leaves as with
    /// `leaveSession`, reason `removed` (the others get `onUserLeft` and `onUserListChanged`; a
    /// 1:1 call, or a group call left with one participant, ends, and its
    /// `onCallEndedMessageReceived` says `removed`). The backend hears
    /// `session.participant_removed`. A removed user may not join the session again while it
    /// lives (`ERR_NOT_PARTICIPANT`). Same errors as `muteParticipant` (`leaveSession` for the
    /// host's own).
    public func removeParticipant(_ params: ParticipantParams, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, host) = try hostedSession(params.sessionId, from: connection)
            let target = try participant(params.uid, of: session, actingAs: host.user.uid, instead: "leaveSession")
            remove(target, from: session, by: host.user, actor: connection, into: &list)
            return sessions[session.id]?.snapshot ?? session.snapshot
        }
    }

    /// Mutes `target`'s audio in `session` for `host` (nil: the app's backend, `muteByServer`):
    /// every device of everyone in it but `excluding` hears `onUserMuted`, with `mutedBy`. A user
    /// already muted is left as is, and nothing is sent.
    func mute(
        _ target: SessionMember, in session: LiveSession, by host: User?, excluding: ConnectionID?,
        into list: inout EffectList
    ) {
        guard !target.audioMuted else { return }
        let muted = session.setMuted(target, audio: true, video: nil, at: nowSeconds, keeping: configuration.maxMuteChangesKept)
        list.send(
            .userMuted(
                sessionId: session.id, user: muted.user, audioMuted: muted.audioMuted, videoMuted: muted.videoMuted,
                mutedBy: host),
            to: session.uids, excluding: excluding)
    }

    /// Removes `target` from `session` for `host` (nil: the app's backend, `removeByServer`):
    /// their devices get `onRemovedFromCall {by}`, the backend hears
    /// `session.participant_removed`, and they leave with reason `removed` (`actor`: the
    /// connection that asked). They may not join the session again.
    func remove(
        _ target: SessionMember, from session: LiveSession, by host: User?, actor: ConnectionID?,
        into list: inout EffectList
    ) {
        session.removed.insert(target.user.uid)
        list.send(.removedFromCall(sessionId: session.id, by: host), to: [target.user.uid])
        list.report(.participantRemoved, WebhookData(call: session.call?.call, sessionId: session.id, user: target.user, by: host))
        departSession(target.user.uid, from: session, reason: .removed, actor: actor, into: &list)
    }

    /// The session `connection` joined, and its member, when that member is the session's host.
    private func hostedSession(
        _ sessionId: String, from connection: ConnectionID
    ) throws(CoreError) -> (LiveSession, SessionMember) {
        let (session, member) = try joinedSession(sessionId, from: connection)
        guard session.host == member.user.uid else { throw .notHost }
        return (session, member)
    }

    /// The member `uid` of `session` a host control acts on; not the host (`instead` names the op
    /// for oneself).
    private func participant(
        _ uid: String, of session: LiveSession, actingAs host: String, instead: String
    ) throws(CoreError) -> SessionMember {
        guard FieldRules.isValidID(uid) else { throw .badRequest("data.uid: \(FieldRules.idRuleDescription)") }
        guard uid != host else { throw .badRequest("data.uid: that is you; use \(instead)") }
        guard let member = session.members[uid] else { throw .notParticipant("\(uid) is not in this session") }
        return member
    }
}
