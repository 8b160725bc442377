import CallGateProtocol

/// Ring progress: callee devices confirm they show a ringing call (`confirmRinging`), and the
/// caller's devices hear how far the ring got (`onOutgoingCallRinging`), coalesced to one push
/// per `ringProgressInterval` and only while the call rings. Service thread only.
extension GatewayCore {
    /// Confirms that `connection` shows the call `sessionId` ringing.
    ///
    /// Only a device of a callee the call still rings may confirm: the caller and users it does
    /// not ring get `ERR_NOT_PARTICIPANT`, a callee who joined `ERR_CALL_ALREADY_JOINED`, one who
    /// declined `ERR_CALL_REJECTED`, one it stopped ringing `ERR_CALL_ENDED`, and a finished call
    /// its status's error, as for `acceptCall`. Confirming again from the same device changes
    /// nothing. The reply is the call; the caller's devices hear the new progress once the
    /// interval since the last push has passed, unless the call stopped ringing meanwhile.
    public func confirmRinging(sessionId: String, from connection: ConnectionID) -> Outcome<Call> {
        transition { list throws(CoreError) in
            let user = try requireUser(connection)
            let live = try liveCall(sessionId)
            guard user.uid != live.callerUID else { throw .notParticipant("only a callee confirms ringing") }
            guard let state = live.state(of: user.uid) else { throw .notParticipant("this call does not ring you") }
            guard state == .ringing else { throw .member(state) }
            let tally = live.tally ?? RingTally()
            live.tally = tally
            if tally.confirm(connection, of: user.uid) {
                note(.ringing, in: live, uid: user.uid, device: connection)
                ringProgressChanged(live)
            }
            return live.call
        }
    }

    /// Starts the ring progress of a call that just started ringing: the callees in `waking`
    /// (no device connected, a wake-up push asked for) are told to the caller at once. When
    /// `announcing` (the backend rang on the caller's behalf, so no device of theirs asked), the
    /// caller's devices hear of the call at once even when nobody is woken.
    func startRingProgress(of live: LiveCall, waking: Set<String>, announcing: Bool = false) {
        guard !waking.isEmpty || announcing else { return }
        live.tally = RingTally(waking: waking)
        ringProgressChanged(live)
    }

    /// `uid` stopped ringing in `live`: their devices no longer count.
    func stopRingProgress(of uid: String, in live: LiveCall) {
        guard let tally = live.tally else { return }
        tally.forget(uid)
        ringProgressChanged(live)
    }

    /// Device `connection` of `uid` went away: it no longer shows the calls that ring `uid`.
    func withdrawRingProgress(of connection: ConnectionID, uid: String) {
        for sessionId in ringingCalls[uid] ?? [] {
            if let live = calls[sessionId], let tally = live.tally, tally.withdraw(connection, of: uid) {
                ringProgressChanged(live)
            }
        }
    }

    /// Device `previous` of `uid` came back as `connection`: its confirmations of the calls that
    /// ring `uid` carry over.
    func carryRingProgress(of previous: ConnectionID, uid: String, to connection: ConnectionID) {
        for sessionId in ringingCalls[uid] ?? [] {
            calls[sessionId]?.tally?.move(previous, of: uid, to: connection)
        }
    }

    /// Schedules the caller's next progress push: now when the last one is an interval old,
    /// else at the end of the interval; one push tells every change until then.
    private func ringProgressChanged(_ live: LiveCall) {
        guard let tally = live.tally, tally.timer == nil, live.call.callStatus == .initiated else { return }
        let interval = tally.interval(base: configuration.ringProgressInterval.wholeMilliseconds)
        let now = monotonicNow
        let due = tally.told == nil ? now : max(now, tally.toldAt + interval)
        tally.timer = timers.schedule(.ringProgress(sessionId: live.id), at: due)
    }

    /// The progress push of `sessionId` is due: the caller's devices hear where the ring stands,
    /// unless the call stopped ringing or nothing changed since the last push.
    func ringProgressDue(_ sessionId: String, into list: inout EffectList) {
        guard let live = calls[sessionId], let tally = live.tally else { return }
        tally.timer = nil
        guard live.call.callStatus == .initiated, live.ringingCount > 0 else { return }
        let progress = tally.progress(ringing: live.ringingCount)
        guard progress != tally.told else { return }
        tally.told = progress
        tally.toldAt = monotonicNow
        tally.pushes += 1
        list.send(.outgoingCallRinging(call: live.call, progress: progress), to: [live.callerUID])
    }
}
