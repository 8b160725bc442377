import CallGateProtocol

/// Hold: a participant pauses the call on their side (their app stops sending and playing media)
/// and takes it up again; the others are told, the participant list shows it, and the call log
/// keeps each participant's time on hold. Service thread only.
extension GatewayCore {
    /// Puts the call on hold (`on` true) or takes it off hold for `connection`'s user. Every
    /// device of every participant except `connection` gets `onCallHeld` / `onCallResumed
    /// {sessionId, user}`; the participant shows `onHold: true` while it lasts; leaving the
    /// session ends a hold. The backend hears `session.call_held` / `session.call_resumed`.
    ///
    /// Errors: those of `setMuted`, then `ERR_BAD_REQUEST` when the user already has the call on
    /// hold (`holdCall`) or does not (`resumeCall`), then for `holdCall` `ERR_RATE_LIMITED`: each
    /// hold counts against the user's session events (`maxSessionEventsPerWindow`), as a hold and
    /// its resume are two webhooks, two timeline steps and two log writes, which a client toggling
    /// in a loop must not flood. A resume is never refused for it: nobody stays on hold.
    ///
    /// Resuming a call the user held away to take a waiting call (`GatewayCore+CallWaiting`)
    /// makes it engage them again: `ERROR_CALL_IN_PROGRESS` while another call engages them.
    /// After a restart or a takeover the hold itself is over, and resuming only takes it back.
    public func setHeld(sessionId: String, on: Bool, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(sessionId, from: connection)
            let uid = member.user.uid
            var tookBack = false
            if !on {
                tookBack = try takeBack(uid, session.id, into: &list)
            }
            guard (member.heldSince != nil) != on else {
                if tookBack {
                    return session.snapshot
                }
                throw .badRequest(on ? "you have this call on hold already" : "you do not have this call on hold")
            }
            let limit = configuration.maxSessionEventsPerWindow
            if on, !sessionEvents.spend(uid, limit: limit, now: monotonicNow) {
                throw .sessionEventsRateLimited(limit)
            }
            hold(member, on, in: session, excluding: connection, into: &list)
            return session.snapshot
        }
    }

    /// Puts `member` on hold in `session` (`on`), or takes them off it: the timeline's step, the
    /// webhook, and `onCallHeld` / `onCallResumed` to every device of everyone in it but
    /// `excluding`.
    func hold(
        _ member: SessionMember, _ on: Bool, in session: LiveSession, excluding: ConnectionID?, into list: inout EffectList
    ) {
        let user = member.user
        _ = session.setHeld(member, on, at: nowSeconds)
        note(on ? .held : .resumed, in: session, uid: user.uid)
        list.report(on ? .callHeld : .callResumed, WebhookData(call: session.call?.call, sessionId: session.id, user: user))
        list.send(
            on ? .callHeld(sessionId: session.id, user: user) : .callResumed(sessionId: session.id, user: user),
            to: session.uids, excluding: excluding)
    }
}
