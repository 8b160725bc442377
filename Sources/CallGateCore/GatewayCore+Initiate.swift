import CallGateProtocol

extension GatewayCore {
    /// Rings a user or a group on behalf of `connection`'s user.
    ///
    /// Checks, in order: the connection is logged in; `receiverId` is a valid uid or guid
    /// (`FieldRules.isValidID`);
    /// `timeout` is allowed; `metadata` fits `maxMetadataBytes`; the caller is not calling
    /// themself; the caller is not already ringing someone or in a call (being rung does not
    /// count); the caller started fewer than `maxCallsPerMinute` calls in the last minute
    /// (`ERR_RATE_LIMITED`); a group exists, has the caller as a member and has someone else to ring.
    ///
    /// The reply is the `initiated` call, and every device of each callee gets
    /// `onIncomingCallReceived`; the caller's other devices get nothing. With `autoBusy`, a
    /// callee in an answered call is not rung: a 1:1 call (or a group call that leaves nobody
    /// to ring) ends `busy` at once, and every device of the caller, the requesting one
    /// included, gets `onOutgoingCallRejected` with the busy user as `by`. Service thread only.
    public func initiateCall(_ params: InitiateCallParams, from connection: ConnectionID) -> CallOutcome {
        CallOutcome.attempt { () throws(CoreError) in try initiate(params, from: connection) }
    }

    private func initiate(_ params: InitiateCallParams, from connection: ConnectionID) throws(CoreError) -> CallOutcome {
        let caller = try requireUser(connection)
        guard FieldRules.isValidID(params.receiverId) else {
            throw .badRequest("data.receiverId: \(FieldRules.idRuleDescription)")
        }
        let timeout = params.timeout ?? configuration.defaultRingTimeout
        let allowed = configuration.allowedRingTimeouts
        guard allowed.contains(timeout) else {
            throw .badRequest("data.timeout: expected \(allowed.lowerBound) to \(allowed.upperBound) seconds")
        }
        if let metadata = params.metadata {
            try checkMetadata(.object(metadata))
        }
        if params.receiverType == .user, params.receiverId == caller.uid {
            throw .callingSelf
        }
        guard engagedCall[caller.uid] == nil else { throw .callInProgress }
        guard callStarts.allows(caller.uid, limit: configuration.maxCallsPerMinute, now: monotonicNow) else {
            throw .callRateLimited(configuration.maxCallsPerMinute)
        }
        let outcome = switch params.receiverType {
        case .user: ringUser(params, from: caller, timeout: timeout)
        case .group: try ringGroup(params, from: caller, timeout: timeout)
        }
        callStarts.record(caller.uid, now: monotonicNow)
        return outcome
    }

    /// `metadata` is kept with the call, sent in every push about it and stored in its log, so it
    /// is bounded in nesting and in bytes of compact JSON.
    private func checkMetadata(_ metadata: JSONValue) throws(CoreError) {
        guard metadata.depth <= configuration.maxMetadataDepth else {
            throw .badRequest("data.metadata: nests deeper than \(configuration.maxMetadataDepth) levels")
        }
        guard let bytes = try? metadata.encoded(), bytes.count <= configuration.maxMetadataBytes else {
            throw .badRequest("data.metadata: larger than \(configuration.maxMetadataBytes) bytes of JSON")
        }
    }

    private func ringUser(_ params: InitiateCallParams, from caller: User, timeout: Int) -> CallOutcome {
        let callee = profile(of: params.receiverId)
        let call = newCall(params, from: caller, to: .user(callee))
        if configuration.autoBusy, isInOngoingCall(callee.uid) {
            return endBusy(call, by: callee, busy: [callee.uid])
        }
        return ring(call, members: [callee.uid], busy: [], timeout: timeout)
    }

    private func ringGroup(_ params: InitiateCallParams, from caller: User, timeout: Int) throws(CoreError) -> CallOutcome {
        guard let group = groups.group(params.receiverId), group.contains(caller.uid) else {
            throw .groupNotFound
        }
        let others = group.members.filter { $0 != caller.uid }
        guard !others.isEmpty else {
            throw .badRequest("data.receiverId: the group has no other member to ring")
        }
        var ringing: [String] = []
        var busy: [String] = []
        for uid in others {
            if configuration.autoBusy, isInOngoingCall(uid) {
                busy.append(uid)
            } else {
                ringing.append(uid)
            }
        }
        let call = newCall(params, from: caller, to: .group(group.summary))
        if ringing.isEmpty {
            return endBusy(call, by: profile(of: busy[0]), busy: busy)
        }
        return ring(call, members: ringing, busy: busy, timeout: timeout)
    }

    private func newCall(_ params: InitiateCallParams, from caller: User, to receiver: CallReceiver) -> Call {
        Call(
            sessionId: freshSessionID(),
            callType: params.callType,
            receiverType: params.receiverType,
            callStatus: .initiated,
            initiator: caller,
            receiver: receiver,
            initiatedAt: nowSeconds,
            metadata: params.metadata
        )
    }

    /// Starts ringing `members`; `busy` are the members skipped as busy, logged as missed.
    private func ring(_ call: Call, members: [String], busy: [String], timeout: Int) -> CallOutcome {
        let session = CallSession(call: call, ordinal: nextOrdinal(), ringing: members, busySkipped: busy)
        // The call log names callees as they are now: later they may be gone from the directory.
        for uid in members + busy {
            if let user = directory.profile(of: uid) {
                session.remember(user)
            }
        }
        register(session, ringFor: timeout)
        var list = DeliveryList()
        list.send(.incomingCallReceived(call: call), to: devices(of: members))
        return CallOutcome(reply: .success(call), deliveries: list.deliveries)
    }

    /// Ends a call nobody could be rung for as `busy`; `busy` are the busy users, logged as missed.
    private func endBusy(_ ringingCall: Call, by busyUser: User, busy: [String]) -> CallOutcome {
        var call = ringingCall
        call.callStatus = .busy
        call.endedAt = call.initiatedAt
        remember(call)
        noteLogChange(CallSession(call: call, ordinal: nextOrdinal(), ringing: [], busySkipped: busy))
        var list = DeliveryList()
        list.send(.outgoingCallRejected(call: call, by: busyUser), to: devices(of: [call.initiator.uid]))
        return CallOutcome(reply: .success(call), deliveries: list.deliveries)
    }
}
