import CallGateProtocol

/// App-defined events inside a session (raise hand, reactions, screen-share state): relayed to
/// the participants, never stored. Service thread only.
extension GatewayCore {
    /// The length of the window `maxSessionEventsPerWindow` counts in.
    static let sessionEventWindowMillis: Int64 = 10_000

    /// Sends `onSessionEvent {sessionId, type, data, user}` to every device of every participant
    /// except `connection` (the sender's other devices included). Not kept in the call log, the
    /// history or the timeline; it is a push like any other, so a device that reconnects with
    /// `recover` gets the ones it missed.
    ///
    /// Errors, in order: the session errors of `setMuted`; `type` not 1..64 characters of
    /// `A-Z a-z 0-9 _ . @ : -`, or `data` nesting deeper than `maxSessionEventDepth` or larger
    /// than `maxSessionEventBytes` of compact JSON (`ERR_BAD_REQUEST`); a user who sent
    /// `maxSessionEventsPerWindow` events in the last ten seconds, in any session
    /// (`ERR_RATE_LIMITED`; in cluster mode each node counts the events of the sessions it owns).
    public func sendSessionEvent(_ params: SessionEventParams, from connection: ConnectionID) -> Outcome<SessionEventResult> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(params.sessionId, from: connection)
            guard FieldRules.isValidEventType(params.type) else {
                throw .badRequest("data.type: \(FieldRules.eventTypeRuleDescription)")
            }
            if let data = params.data {
                try checkEventData(data)
            }
            let limit = configuration.maxSessionEventsPerWindow
            guard sessionEvents.spend(member.user.uid, limit: limit, now: monotonicNow) else {
                throw .sessionEventsRateLimited(limit)
            }
            list.send(
                .sessionEvent(sessionId: session.id, type: params.type, data: params.data, user: member.user),
                to: session.uids, excluding: connection)
            return SessionEventResult(sessionId: session.id, type: params.type, participants: session.uids.count)
        }
    }

    /// An event's `data` goes to every device in the session and into their push histories, so
    /// it is bounded in nesting and in bytes of compact JSON.
    private func checkEventData(_ data: JSONValue) throws(CoreError) {
        guard data.depth <= configuration.maxSessionEventDepth else {
            throw .badRequest("data.data: nests deeper than \(configuration.maxSessionEventDepth) levels")
        }
        guard let bytes = try? data.encoded(), bytes.count <= configuration.maxSessionEventBytes else {
            throw .badRequest("data.data: larger than \(configuration.maxSessionEventBytes) bytes of JSON")
        }
    }
}
