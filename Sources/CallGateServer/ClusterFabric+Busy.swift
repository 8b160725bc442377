import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation

/// Cluster mode: busy claims (`BusyClaims`), which keep a user out of two calls when the calls
/// live on different nodes. An op that may engage its user claims them first and runs only if
/// no other node's call holds them; every outcome then writes the claims of the users whose
/// engagement it changed, as the Core has them; a timer renews them all. Service thread only.
extension ClusterFabric {
    /// Claims the user of `request`'s device as busy, then runs `op`; see `claim`.
    func claimingUser(of request: ReplyAddress, then op: @escaping () -> Void) {
        claim(request, ringing: [], start: nil) { _ in op() }
    }

    /// Claims the inviter (held by this node's call already, so the claim stands) and reads the
    /// claims, profiles and devices of `invitees`, then runs `op`.
    func inviting(_ invitees: [String], of request: ReplyAddress, then op: @escaping (CalleesElsewhere) -> Void) {
        claim(request, ringing: invitees, start: nil, then: op)
    }

    /// Claims the caller and counts the call start on the nodes together, then starts the call
    /// (`initiate`) and records it as this node's before `send` carries its outcome out (so no
    /// push of it goes out before another node can find its owner); a call that did not start
    /// gives its start back.
    func startingCall(
        of request: ReplyAddress, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void
    ) {
        let start = CallStarts.Start(limit: configuration.core.maxCallsPerMinute)
        claim(request, ringing: ringing, start: start) { [self] elsewhere in
            let caller = core.user(of: request.connection)?.uid
            let outcome = initiate(elsewhere)
            switch outcome.reply {
            case .success(let call):
                recordOwner(of: call)
            case .failure:
                if let caller {
                    cluster.starts.refund(start, by: caller)
                }
            }
            send(outcome)
        }
    }

    /// Records in Redis that `call`, which this node just started, is this node's, before any
    /// push of it goes out.
    func recordOwner(of call: Call) {
        cluster.owners.record(call.sessionId) { [logger] failure in
            if let failure {
                logger.warning("call owner not recorded", metadata: ["sessionId": "\(call.sessionId)", "error": "\(failure)"])
            }
        }
    }

    /// Claims the user of `request`'s device (when it is known), and reads the claims and
    /// profiles of `ringing`, then runs `op` with what other nodes know of them (and counts
    /// `start`, when given, against the user's calls per minute); or refuses the request:
    /// `ERROR_CALL_IN_PROGRESS` when another node's call holds the user, `ERR_RATE_LIMITED` when
    /// a start passes `--max-calls-per-minute` on the nodes together, `ERR_CLUSTER_UNAVAILABLE`
    /// when Redis cannot be asked.
    private func claim(
        _ request: ReplyAddress, ringing: [String], start: CallStarts.Start?, then op: @escaping (CalleesElsewhere) -> Void
    ) {
        guard let uid = core.user(of: request.connection)?.uid else {
            op(CalleesElsewhere())
            return
        }
        claim(uid, ringing: ringing, start: start, while: { [self] in core.user(of: request.connection) != nil }) { [self] refusal in
            refuse(request, refusal)
        } then: { elsewhere in
            op(elsewhere)
        }
    }

    /// Claims the user of `request`'s device for the accept of a waiting call: a claim of
    /// another node's answered call is released by that node first, which puts the call on hold
    /// for them (`CallCommand.holdAway`), then the user is claimed once more.
    func claimingWaitingUser(of request: ReplyAddress, then op: @escaping () -> Void) {
        guard let uid = core.user(of: request.connection)?.uid else {
            op()
            return
        }
        let wanted = { [self] in core.user(of: request.connection) != nil }
        claim(uid, ringing: [], start: nil, while: wanted) { [self] refusal in
            guard case .held(let holder?) = refusal, holder.stage == .joined, holder.node != cluster.nodeID,
                  let held = holder.sessionId, let body = try? JSONEncoder().encode(CallCommand.holdAway(sessionId: held, uid: uid))
            else {
                refuse(request, refusal)
                return
            }
            // The device's node waits for the answer while the other node holds the call.
            if let forward = request.forward {
                tellHeld(forward)
            }
            send(.node(answered: { [self] response in
                guard wanted() else { return }
                guard response.status == 200 else {
                    let detail = (try? JSONDecoder().decode(HTTPErrorBody.self, from: Data(response.body)))?.error
                    output.fail(
                        request, code: Self.code(ofHoldAwayAnswer: response.status, detail?.code),
                        message: detail?.message ?? "your call \(held) could not be put on hold")
                    return
                }
                claimingUser(of: request, then: op)
            }), to: holder.node) { [cluster] ticket in
                .command(ticket: ticket, from: cluster.nodeID, body: Array(body))
            }
        } then: { _ in
            op()
        }
    }

    /// The error a device gets when the node of its answered call answered `status` (with
    /// `code`) to holding it for a waiting call.
    private static func code(ofHoldAwayAnswer status: Int, _ code: HTTPErrorCode?) -> ErrorCode {
        switch (status, code) {
        case (429, _): .rateLimited
        case (503, .storeUnavailable?): .storeUnavailable
        case (503, _): .clusterUnavailable
        case (504, _): .callOwnerUnreachable
        default: .callInProgress
        }
    }

    /// Answers `request` with why its user could not be claimed, as one process would.
    private func refuse(_ request: ReplyAddress, _ refusal: ClaimRefusal) {
        switch refusal {
        case .startsUsedUp:
            startsUsedUp(request)
        case .held(let holder):
            output.fail(request, code: .callInProgress, message: holder?.sessionId.map {
                "you are in call \($0) already, on another device"
            } ?? "you are starting or answering a call on another device already")
        case .unreachable(let failure):
            output.fail(request, code: .clusterUnavailable, message: "cannot claim you as busy in Redis: \(failure); try again shortly")
        }
    }

    /// Claims `uid` and reads the claims, profiles and devices of `ringing` (counting `start`,
    /// when given), then runs `op` with what other nodes know of them, or `refused` with why
    /// not; neither when `wanted` says the op is no longer wanted by then (its device left).
    func claim(
        _ uid: String, ringing: [String], start: CallStarts.Start?, while wanted: @escaping () -> Bool,
        refused: @escaping (ClaimRefusal) -> Void, then op: @escaping (CalleesElsewhere) -> Void
    ) {
        claimsInFlight[uid, default: 0] += 1
        cluster.busy.claim(uid, ringing: ringing, start: start) { [self] result in
            claimsInFlight[uid] = claimsInFlight[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
            if wanted() {
                switch result {
                case .success(.claimed(let answered, let profiles, let devices)):
                    op(CalleesElsewhere(
                        answered: answered,
                        profiles: profiles.compactMapValues(User.init(clusterJSON:)).filter { $0.key == $0.value.uid },
                        onlineDevices: onlineDevices(of: ringing, elsewhere: devices)))
                case .success(.startsUsedUp):
                    refused(.startsUsedUp)
                case .success(.held(let holder)):
                    refused(.held(holder))
                case .failure(let failure):
                    refused(.unreachable(failure))
                }
            }
            writeClaim(of: uid)
        }
    }

    /// Starts a meeting the Core does not know (a call start, counted on the nodes together),
    /// or joins a known session at once; a start whose join failed is given back.
    func joining(
        _ sessionId: String, as uid: String, from connection: ConnectionID, answering request: ReplyAddress,
        join: @escaping () -> Bool
    ) {
        guard !core.knows(sessionId), SessionIDFormat.isValid(sessionId) else {
            _ = join()
            return
        }
        let start = CallStarts.Start(limit: configuration.core.maxCallsPerMinute)
        cluster.starts.spend(start, by: uid) { [self] result in
            guard core.user(of: connection) != nil else {
                cluster.starts.refund(start, by: uid)
                return
            }
            switch result {
            case .success(true):
                if !join() {
                    cluster.starts.refund(start, by: uid)
                }
            case .success(false):
                startsUsedUp(request)
            case .failure(let failure):
                output.fail(request, code: .clusterUnavailable, message: "cannot count your call starts in Redis: \(failure); try again shortly")
            }
        }
    }

    /// Refuses `request`: its user's calls per minute are used up on the nodes together, and
    /// they are told so as one process tells them.
    func startsUsedUp(_ request: ReplyAddress) {
        let error = CoreError.callRateLimited(configuration.core.maxCallsPerMinute)
        output.fail(request, code: error.code, message: error.message)
    }

    /// Writes the busy claims of `uids` as the Core has their engagements now; a user with a
    /// claim still on its way is written when it comes back.
    func writeClaims(of uids: [String]) {
        for uid in uids where claimsInFlight[uid] == nil {
            writeClaim(of: uid)
        }
    }

    private func writeClaim(of uid: String) {
        guard claimsInFlight[uid] == nil else { return }
        if let engagement = core.engagement(of: uid) {
            cluster.busy.hold(uid, in: engagement.sessionId, answered: engagement.answered)
        } else {
            cluster.busy.release(uid)
        }
    }

    /// Renews the claims of every user engaged in a call of this node, then waits for the next
    /// renewal.
    func renewClaims() {
        timers.claimRenewal.schedule(afterMicroseconds: cluster.busy.timing.renewInterval.wholeMilliseconds * 1000)
        let claims = core.engagedUsers.keys.compactMap { uid in
            core.engagement(of: uid).map { (uid: uid, claim: cluster.busy.claim(in: $0.sessionId, answered: $0.answered)) }
        }
        cluster.busy.renew(claims)
    }

    /// Most callees whose claims and profiles an `initiateCall` reads: a bigger group's other
    /// members are rung without (no auto-busy for their calls on other nodes, their uid as name
    /// until they answer), so that one op costs Redis a bounded amount.
    static let maxCalleesRead = 256

    /// The users an `initiateCall` with `params` from `caller` would ring, whose claims it reads
    /// (for `autoBusy`), at most `maxCalleesRead`; none when the receiver is no valid id or no
    /// group the caller is in (with `anyGroup`, no group).
    func callees(of params: InitiateCallParams, from caller: String, anyGroup: Bool) -> [String] {
        guard FieldRules.isValidID(params.receiverId) else { return [] }
        switch params.receiverType {
        case .user:
            return params.receiverId == caller ? [] : [params.receiverId]
        case .group:
            guard let group = groups.group(params.receiverId), anyGroup || group.contains(caller) else { return [] }
            return Array(group.members.lazy.filter { $0 != caller }.prefix(Self.maxCalleesRead))
        }
    }
}

/// Why a busy claim refused its op.
enum ClaimRefusal {
    /// The user's call starts this minute are used up, on the nodes together.
    case startsUsedUp
    /// Another node's call (or op) holds the user; nil when Redis answered no claim.
    case held(BusyClaim?)
    /// Redis could not be asked.
    case unreachable(RedisFailure)
}
